import { useRedisServer } from '@faceverify/test-support';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { trackedSession } from './support/records.js';
import { commandCalls } from './support/stats.js';

// Command statistics are per server, so this file has a server of its own.
const server = useRedisServer();

describe('leaseDue cost', () => {
  it('touches the due records only: 10 due among 20,000 tracked', async () => {
    const redis = connect(server().url);
    const prefix = uniquePrefix('scale');
    const store = new RedisStore({ redis, prefix });
    const now = Date.now();
    const due = new Set<string>();
    for (let start = 0; start < 20_000; start += 1000) {
      await Promise.all(
        Array.from({ length: 1000 }, (_, i) => {
          const n = start + i;
          const isDue = n % 2000 === 0;
          const record = trackedSession({ dueAt: isDue ? now - n : now + 60_000 + n });
          if (isDue) due.add(record.key);
          return store.insert({ record, now });
        }),
      );
    }
    expect(due.size).toBe(10);
    expect(await redis.zcard(`${prefix}due`)).toBe(20_000);

    await redis.config('RESETSTAT');
    const granted = await store.leaseDue({ now, limit: 1000, owner: 'sweeper', leaseMs: 60_000 });
    const calls = await commandCalls(redis);

    expect(new Set(granted.map((r) => r.key))).toEqual(due);
    // Three rounds (see scripts/declared-keys.ts): the first learns the due records' keys,
    // the second their users' indexes, the third grants. Per due record: HGET of its user in
    // the last two, HGET of its state in the last, one HMGET (its lifetime), one HGETALL (the
    // grant); nothing else is read.
    expect(calls.get('evalsha')).toBe(3);
    expect(calls.get('hget')).toBe(30);
    expect(calls.get('hmget')).toBe(10);
    expect(calls.get('hgetall')).toBe(10);
    expect(calls.get('hset')).toBe(10);
    // The due range read twice per round: once with the 10, once finding nothing more.
    expect(calls.get('zrangebyscore')).toBe(6);
    expect(calls.has('scan')).toBe(false);
    expect(calls.has('keys')).toBe(false);
  });
});
