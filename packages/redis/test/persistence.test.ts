import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { storedResult, trackedSession } from './support/records.js';

describe('a receiver process restarting', () => {
  it('finds every record again through a new connection and a new store', async () => {
    const prefix = uniquePrefix('restart');
    const before = connect();
    const store = new RedisStore({ redis: before, prefix });
    const now = Date.now();
    const pending = trackedSession({ externalUserId: 'u-restart', dueAt: Date.now() + 60_000 });
    const delivering = trackedSession({ externalUserId: 'u-restart' });
    await store.insert({ record: pending, now });
    await store.insert({ record: delivering, now });
    expect(await store.attachResult({ key: delivering.key, result: storedResult(), now })).toBe(
      'attached',
    );
    expect(await store.remember({ digest: 'digest-1', ttlMs: 60_000, now })).toBe(true);
    await before.quit();

    const after = new RedisStore({ redis: connect(), prefix });
    expect(await after.get({ key: pending.key, now })).toEqual(pending);
    expect(
      (await after.findByUser({ externalUserId: 'u-restart', now, limit: 10 }))
        .map((r) => r.key)
        .sort(),
    ).toEqual([pending.key, delivering.key].sort());
    expect(await after.remember({ digest: 'digest-1', ttlMs: 60_000, now })).toBe(false);
    expect(await after.counts({ now })).toEqual({
      pending: 1,
      delivering: 1,
      completed: 0,
      expired: 0,
      failed: 0,
    });
    const due = await after.leaseDue({ now, limit: 10, owner: 'new-process', leaseMs: 5000 });
    expect(due.map((r) => [r.key, r.state, r.result?.payload.status])).toEqual([
      [delivering.key, 'delivering', 'verified'],
    ]);
  });
});
