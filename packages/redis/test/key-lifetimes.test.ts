import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { storedResult, trackedSession } from './support/records.js';

/** Every key under `prefix` with its PTTL, read in one pipeline. */
async function keyTtls(redis: Redis, prefix: string): Promise<Map<string, number>> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  const replies = await keys.reduce((pipeline, key) => pipeline.pttl(key), redis.pipeline()).exec();
  return new Map(keys.map((key, i) => [key, replies![i]![1] as number]));
}

describe('contract rule 8 in Redis: nothing is kept forever', () => {
  const redis = connect();

  it('gives every key it writes a TTL, and every set a TTL no shorter than its records', async () => {
    const prefix = uniquePrefix('ttl');
    const store = new RedisStore({ redis, prefix });
    const now = Date.now();
    const user = 'ttl-user';
    const record = (key: string, dueIn = 0) =>
      trackedSession({ key, externalUserId: user, dueAt: now + dueIn, createdAt: now });
    const settle = (key: string, update: Parameters<RedisStore['settle']>[0]['update']) =>
      store.settle({ key, owner: 'w', update, now });

    // One record for each way a record can end up, and the other writes of a Receiver.
    for (const key of ['rescheduled', 'delivering', 'completed', 'failed', 'expired']) {
      await store.insert({ record: { ...record(key), createdAt: now + 1 }, now });
    }
    await store.insert({
      record: record('leased-at-insert', 0),
      now,
    });
    await store.insert({
      record: {
        ...trackedSession({ key: 'webhook:abc', externalUserId: 'other-user' }),
        state: 'delivering',
        result: storedResult(),
        lease: { owner: 'w', until: now + 60_000 },
      },
      now,
    });
    expect(await store.attachResult({ key: 'delivering', result: storedResult(), now })).toBe(
      'attached',
    );
    expect(
      await store.lease({ key: 'rescheduled', owner: 'w', now, leaseMs: 60_000 }),
    ).toBeDefined();
    expect(
      await settle('rescheduled', { state: 'pending', dueAt: now + 30_000, attempts: 1 }),
    ).toBe(true);
    const leased = await store.leaseDue({ now, limit: 10, owner: 'w', leaseMs: 60_000 });
    expect(leased.map((r) => r.key).sort()).toEqual(
      ['completed', 'delivering', 'expired', 'failed', 'leased-at-insert'].sort(),
    );
    expect(
      await settle('delivering', { state: 'delivering', dueAt: now + 10_000, attempts: 1 }),
    ).toBe(true);
    expect(
      await settle('completed', { state: 'completed', retainMs: 60_000, result: storedResult() }),
    ).toBe(true);
    expect(await settle('failed', { state: 'failed', retainMs: 120_000, attempts: 20 })).toBe(true);
    expect(await settle('expired', { state: 'expired', retainMs: 60_000 })).toBe(true);
    const { displaced } = await store.insert({
      record: { ...record('newest'), createdAt: now + 2 },
      now,
      maxOpenPerUser: 2,
      displacedRetainMs: 60_000,
    });
    expect(displaced.map((r) => r.key)).toEqual(['leased-at-insert', 'delivering']);
    expect(
      await store.remember({ digest: '0123456789abcdef0123456789abcdef', ttlMs: 60_000, now }),
    ).toBe(true);
    expect(await store.remember({ digest: 'forgotten', ttlMs: 60_000, now })).toBe(true);
    await store.forget({ digest: 'forgotten' });
    expect((await store.findByUser({ externalUserId: user, now, limit: 100 })).length).toBe(7);
    expect(await store.counts({ now })).toEqual({
      pending: 2,
      delivering: 1,
      completed: 1,
      expired: 3,
      failed: 1,
    });

    const ttls = await keyTtls(redis, prefix);
    const kinds = new Set([...ttls.keys()].map((key) => key.slice(prefix.length).split(':')[0]));
    expect([...kinds].sort()).toEqual(['d', 'due', 'marker', 'n', 's', 'uc', 'uo', 'w']);
    // The marker alone never expires: one small key per store, whose absence tells a Redis
    // that lost the store's data (see memory-watch.ts).
    const withoutTtl = [...ttls].filter(([, ttl]) => ttl < 0).map(([key]) => key);
    expect(withoutTtl).toEqual([`${prefix}marker`]);

    // A set expires only after every record it holds: its TTL is at least each record's.
    const containers = [...ttls.keys()].filter((key) => !key.startsWith(`${prefix}s:`));
    const sets = containers.filter(
      (key) =>
        !key.startsWith(`${prefix}d:`) &&
        !key.startsWith(`${prefix}w:`) &&
        !withoutTtl.includes(key),
    );
    for (const container of sets) {
      for (const member of await redis.zrange(container, 0, -1)) {
        const recordTtl = ttls.get(`${prefix}s:${member}`);
        expect(recordTtl, `${member} of ${container}`).toBeDefined();
        expect(ttls.get(container)! + 5, `${container} outlives ${member}`).toBeGreaterThanOrEqual(
          recordTtl!,
        );
      }
    }
  });

  it('keeps a start while its claim holds or its session can be reused, and a count for its period', async () => {
    const prefix = uniquePrefix('ttl-starts');
    const store = new RedisStore({ redis, prefix });
    const now = Date.now();
    const user = 'u1:ttl-start-user';
    const counter = { key: 'n1:u:ttl:day', limit: 5, ttlMs: 86_400_000 };
    const claim = { externalUserId: user, now, claimMs: 60_000, counters: [counter] };
    // One start inserted with its session, one claimed and never inserted, one ended.
    for (const startKey of ['s1:inserted', 's1:claimed', 's1:ended']) {
      const outcome = await store.claimStart({ ...claim, startKey, owner: startKey });
      expect(outcome.claim).toBe('granted');
    }
    const record = trackedSession({ externalUserId: user, expiresAt: now + 1_800_000 });
    await store.insert({ record, now, start: { startKey: 's1:inserted', owner: 's1:inserted' } });
    await store.endStart({ startKey: 's1:ended', owner: 's1:ended', now });

    const ttls = await keyTtls(redis, prefix);
    const ttl = (name: string) => ttls.get(`${prefix}${name}`);
    // The claim's 60 s, or the session's 30 minutes, plus the cleanup grace of a minute.
    expect(ttl('st:s1:claimed')).toBeGreaterThan(110_000);
    expect(ttl('st:s1:claimed')).toBeLessThanOrEqual(120_000);
    expect(ttl('st:s1:inserted')).toBeGreaterThan(1_850_000);
    expect(ttl('st:s1:inserted')).toBeLessThanOrEqual(1_860_000);
    expect(ttl('st:s1:ended'), 'a start ended with no session holds nothing').toBeUndefined();
    expect(ttl(`us:${user}`)).toBeGreaterThanOrEqual(ttl('st:s1:inserted')! - 5);
    expect(ttl('c:n1:u:ttl:day')).toBeGreaterThan(86_400_000);
    expect(ttl('c:n1:u:ttl:day')).toBeLessThanOrEqual(86_460_000);
    expect([...ttls].filter(([, left]) => left < 0).map(([key]) => key)).toEqual([
      `${prefix}marker`,
    ]);
  });
});
