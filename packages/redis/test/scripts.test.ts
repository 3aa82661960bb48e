import { useRedisServer } from '@faceverify/test-support';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { storedResult, trackedSession } from './support/records.js';
import { commandCalls } from './support/stats.js';

// SCRIPT FLUSH and command statistics are per server, so this file has a server of its own.
const server = useRedisServer();

/** One call of every scripted operation, on a fresh record. */
async function everyScript(store: RedisStore): Promise<void> {
  const record = trackedSession();
  const now = Date.now();
  expect((await store.insert({ record, now })).inserted).toBe(true);
  expect(
    await store.findByUser({ externalUserId: record.externalUserId, now, limit: 10 }),
  ).toHaveLength(1);
  expect(
    (await store.leaseDue({ now, limit: 1, owner: 'w', leaseMs: 5000 })).map((r) => r.key),
  ).toEqual([record.key]);
  expect(await store.lease({ key: record.key, owner: 'w', now, leaseMs: 5000 })).toBeDefined();
  expect(await store.attachResult({ key: record.key, result: storedResult(), now })).toBe(
    'attached',
  );
  expect(
    await store.settle({
      key: record.key,
      owner: 'w',
      update: { state: 'completed', retainMs: 1000 },
      now,
    }),
  ).toBe(true);
  expect((await store.counts({ now })).completed).toBe(1);
  expect(await store.remember({ digest: record.key, ttlMs: 1000, now })).toBe(true);
}

describe('Lua scripts', () => {
  it('are sent again when Redis has forgotten them, then run by their SHA1', async () => {
    const redis = connect(server().url);
    const store = new RedisStore({ redis, prefix: uniquePrefix('flush') });
    await redis.script('FLUSH');
    await redis.config('RESETSTAT');

    await everyScript(store);
    const first = await commandCalls(redis);
    // Eight scripts: each first EVALSHA answered NOSCRIPT and was followed by an EVAL; a
    // script run again with the keys it asked for is known by then.
    expect(first.get('eval')).toBe(8);
    const perRun = first.get('evalsha')!;
    expect(perRun).toBeGreaterThanOrEqual(8);

    await redis.config('RESETSTAT');
    await everyScript(new RedisStore({ redis, prefix: uniquePrefix('flush') }));
    const second = await commandCalls(redis);
    expect(second.has('eval')).toBe(false);
    expect(second.get('evalsha')).toBe(perRun);
  });
});
