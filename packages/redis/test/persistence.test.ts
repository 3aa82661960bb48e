import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { storedResult, trackedSession } from './support/records.js';

describe('a receiver process restarting', () => {
  it('finds every record again through a new connection and a new store', async () => {
    const prefix = uniquePrefix('restart');
    const before = connect();
    const store = new RedisStore({ redis: before, prefix });
    const pending = trackedSession({ externalUserId: 'u-restart', dueAt: Date.now() + 60_000 });
    const delivering = trackedSession({ externalUserId: 'u-restart' });
    await store.insert(pending);
    await store.insert(delivering);
    expect(await store.attachResult(delivering.key, storedResult(), Date.now())).toBe('attached');
    expect(await store.remember('digest-1', 60_000, Date.now())).toBe(true);
    await before.quit();

    const after = new RedisStore({ redis: connect(), prefix });
    expect(await after.get(pending.key)).toEqual(pending);
    expect((await after.findByUser('u-restart')).map((r) => r.key).sort()).toEqual(
      [pending.key, delivering.key].sort(),
    );
    expect(await after.remember('digest-1', 60_000, Date.now())).toBe(false);
    expect(await after.counts()).toEqual({ pending: 1, delivering: 1, completed: 0, expired: 0 });
    const due = await after.leaseDue(Date.now(), 10, 'new-process', 5000);
    expect(due.map((r) => [r.key, r.state, r.result?.payload.status])).toEqual([
      [delivering.key, 'delivering', 'verified'],
    ]);
  });
});
