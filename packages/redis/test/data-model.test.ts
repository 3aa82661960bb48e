import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { storedResult, trackedSession } from './support/records.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the data model in Redis', () => {
  const redis = connect();

  it('writes one hash per record, a due set, a user index and counters under the prefix', async () => {
    const prefix = uniquePrefix('model');
    const store = new RedisStore({ redis, prefix });
    const record = trackedSession({ externalUserId: 'ada' });
    await store.insert(record);
    await store.remember('abc', 60_000, Date.now());

    expect(await redis.hget(`${prefix}s:${record.key}`, 'state')).toBe('pending');
    expect(await redis.zscore(`${prefix}due`, record.key)).toBe(String(record.dueAt));
    expect(await redis.zscore(`${prefix}u:ada`, record.key)).toBe('inf');
    expect(await redis.hget(`${prefix}counts`, 'pending')).toBe('1');
    const digestTtl = await redis.pttl(`${prefix}d:abc`);
    expect(digestTtl).toBeGreaterThan(59_000);
    expect(digestTtl).toBeLessThanOrEqual(60_000);
    expect((await redis.keys(`${prefix}*`)).sort()).toEqual(
      [
        `${prefix}s:${record.key}`,
        `${prefix}due`,
        `${prefix}u:ada`,
        `${prefix}counts`,
        `${prefix}d:abc`,
      ].sort(),
    );
  });

  it('gives a closed record and, once nothing of the user is open, the user index an expiry', async () => {
    const prefix = uniquePrefix('retain');
    const store = new RedisStore({ redis, prefix });
    const first = trackedSession({ externalUserId: 'bea' });
    const second = trackedSession({ externalUserId: 'bea' });
    await store.insert(first);
    await store.insert(second);
    const index = `${prefix}u:bea`;

    await store.lease(first.key, 'w', Date.now(), 5000);
    await store.settle(first.key, 'w', { state: 'completed', retainMs: 30_000 }, Date.now());
    const recordTtl = await redis.pttl(`${prefix}s:${first.key}`);
    expect(recordTtl).toBeGreaterThan(29_000);
    expect(recordTtl).toBeLessThanOrEqual(30_000);
    expect(await redis.zscore(`${prefix}due`, first.key)).toBeNull();
    expect(await redis.pttl(index)).toBe(-1);

    await store.lease(second.key, 'w', Date.now(), 5000);
    await store.settle(second.key, 'w', { state: 'expired', retainMs: 10_000 }, Date.now());
    // The index outlives the record retained longest (30 s), plus a grace.
    expect(await redis.pttl(index)).toBeGreaterThan(30_000);

    await store.insert(trackedSession({ externalUserId: 'bea' }));
    expect(await redis.pttl(index)).toBe(-1);
  });

  it('stops counting closed records once their retention passed', async () => {
    const store = new RedisStore({ redis, prefix: uniquePrefix('count') });
    const record = trackedSession();
    await store.insert(record);
    await store.lease(record.key, 'w', Date.now(), 5000);
    await store.settle(record.key, 'w', { state: 'expired', retainMs: 50 }, Date.now());
    expect(await store.counts()).toEqual({ pending: 0, delivering: 0, completed: 0, expired: 1 });
    await sleep(100);
    expect(await store.counts()).toEqual({ pending: 0, delivering: 0, completed: 0, expired: 0 });
  });

  it('removes a record with no retention at once', async () => {
    const store = new RedisStore({ redis, prefix: uniquePrefix('zero') });
    const record = trackedSession();
    await store.insert(record);
    await store.lease(record.key, 'w', Date.now(), 5000);
    await store.settle(record.key, 'w', { state: 'expired', retainMs: 0 }, Date.now());
    expect(await store.get(record.key)).toBeUndefined();
    expect(await store.findByUser(record.externalUserId)).toEqual([]);
    expect((await store.counts()).expired).toBe(0);
  });

  it('counts a key used again after its record was purged once, for its new user only', async () => {
    const store = new RedisStore({ redis, prefix: uniquePrefix('reuse') });
    const record = trackedSession({ externalUserId: 'cy' });
    await store.insert(record);
    await store.lease(record.key, 'w', Date.now(), 5000);
    await store.settle(record.key, 'w', { state: 'completed', retainMs: 30 }, Date.now());
    await sleep(60);
    expect(await store.insert({ ...record, externalUserId: 'dee' })).toBe(true);
    expect(await store.findByUser('cy')).toEqual([]);
    expect((await store.findByUser('dee')).map((r) => r.key)).toEqual([record.key]);
    expect(await store.counts()).toEqual({ pending: 1, delivering: 0, completed: 0, expired: 0 });
  });

  it('round-trips every field, infinite times included', async () => {
    const store = new RedisStore({ redis, prefix: uniquePrefix('fields') });
    const record = trackedSession({
      state: 'delivering',
      expiresAt: Number.POSITIVE_INFINITY,
      attempts: 3,
      result: storedResult({ secretLabel: 'current', source: 'poll' }),
      lease: { owner: 'someone', until: Date.now() + 60_000 },
    });
    const { token: _token, ...withoutToken } = trackedSession({ externalUserId: 'é 🧪 user' });
    await store.insert(record);
    await store.insert(withoutToken);
    expect(await store.get(record.key)).toEqual(record);
    expect(await store.get(withoutToken.key)).toStrictEqual(withoutToken);
  });

  it('does not grant a record inserted with a lease before that lease ends', async () => {
    const store = new RedisStore({ redis, prefix: uniquePrefix('held') });
    const now = Date.now();
    const record = trackedSession({ dueAt: now - 10, lease: { owner: 'other', until: now + 80 } });
    await store.insert(record);
    expect(await store.leaseDue(now, 10, 'w', 5000)).toEqual([]);
    expect((await store.get(record.key))?.dueAt).toBe(now + 80);
    const later = await store.leaseDue(now + 100, 10, 'w', 5000);
    expect(later.map((r) => r.lease?.owner)).toEqual(['w']);
  });

  it('works behind an ioredis keyPrefix', async () => {
    const prefix = uniquePrefix('keyprefix');
    const prefixed = connect(undefined, { keyPrefix: 'app:' });
    const store = new RedisStore({ redis: prefixed, prefix });
    const record = trackedSession({ externalUserId: 'eve' });
    await store.insert(record);
    expect((await store.findByUser('eve')).map((r) => r.key)).toEqual([record.key]);
    expect((await store.leaseDue(Date.now(), 10, 'w', 5000)).map((r) => r.key)).toEqual([
      record.key,
    ]);
    expect(await redis.exists(`app:${prefix}s:${record.key}`)).toBe(1);
    expect(await redis.exists(`${prefix}s:${record.key}`)).toBe(0);
  });

  it('refuses a lease that would not outlast now, and grants nothing for no limit', async () => {
    const store = new RedisStore({ redis, prefix: uniquePrefix('args') });
    const record = trackedSession();
    await store.insert(record);
    await expect(store.leaseDue(Date.now(), 10, 'w', 0)).rejects.toThrow(RangeError);
    await expect(store.lease(record.key, 'w', Date.now(), 0.5)).rejects.toThrow(/leaseMs/);
    expect(await store.leaseDue(Date.now(), 0, 'w', 1000)).toEqual([]);
    expect((await store.leaseDue(Date.now(), Number.POSITIVE_INFINITY, 'w', 1000)).length).toBe(1);
  });
});
