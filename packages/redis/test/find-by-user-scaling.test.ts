import { useRedisServer } from '@faceverify/test-support';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { trackedSession } from './support/records.js';
import { commandCalls } from './support/stats.js';

// Command statistics are per server, so this file has a server of its own.
const server = useRedisServer();

describe('findByUser cost', () => {
  it('reads only the records it returns: 13 of one user who has 8,000', async () => {
    const redis = connect(server().url);
    const prefix = uniquePrefix('user-scale');
    const store = new RedisStore({ redis, prefix });
    const now = Date.now();
    const user = 'busy-user';
    // Each insert displaces the oldest open record: 7,990 closed, 10 open at the end, each
    // closed one retained a little longer than the one before.
    for (let start = 0; start < 8000; start += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, i) => {
          const n = start + i;
          return store.insert({
            record: trackedSession({ externalUserId: user, createdAt: now + n }),
            now: now + n,
            maxOpenPerUser: 10,
            displacedRetainMs: 86_400_000,
          });
        }),
      );
    }
    const counts = await store.counts({ now: now + 8000 });
    expect(counts.pending + counts.expired).toBe(8000);
    expect(counts.pending).toBe(10);

    await redis.config('RESETSTAT');
    const found = await store.findByUser({ externalUserId: user, now: now + 8000, limit: 13 });
    const calls = await commandCalls(redis);

    expect(found.map((r) => r.state)).toEqual([
      ...Array.from({ length: 10 }, () => 'pending'),
      'expired',
      'expired',
      'expired',
    ]);
    expect(found.slice(0, 10).map((r) => r.createdAt)).toEqual(
      Array.from({ length: 10 }, (_, i) => now + 7990 + i),
    );
    // The closed records kept longest are the ones closed last.
    expect(found.slice(10).map((r) => r.createdAt)).toEqual([now + 7989, now + 7988, now + 7987]);
    expect(calls.get('hgetall')).toBe(13);
    expect(calls.get('hmget')).toBe(13);
    expect(calls.has('scan')).toBe(false);
    expect(calls.has('keys')).toBe(false);
  });
});
