import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { WRITER_TTL_MS } from '../src/scripts/marker.js';
import { CLEANUP_GRACE_MS, OPEN_RECORD_GRACE_MS } from '../src/scripts/record-lifetime.js';
import { connect, uniquePrefix } from './support/clients.js';
import { storedResult, trackedSession } from './support/records.js';

const DAY_MS = 86_400_000;

describe('the data model in Redis', () => {
  const redis = connect();

  it('writes one hash per record, a due set, the user index, a state set and the digest', async () => {
    const prefix = uniquePrefix('model');
    const store = new RedisStore({ redis, prefix });
    const record = trackedSession({ externalUserId: 'ada' });
    const now = record.createdAt;
    await store.insert({ record, now });
    await store.remember({ digest: 'abc', ttlMs: 60_000, now });

    expect(await redis.hget(`${prefix}s:${record.key}`, 'state')).toBe('pending');
    expect(await redis.zscore(`${prefix}due`, record.key)).toBe(String(record.dueAt));
    expect(await redis.zscore(`${prefix}uo:ada`, record.key)).toBe(String(record.createdAt));
    expect(await redis.zscore(`${prefix}n:pending`, record.key)).toBe(
      String(record.expiresAt + OPEN_RECORD_GRACE_MS),
    );
    // The digest holds the end of its window; its Redis TTL only cleans up after it.
    expect(await redis.get(`${prefix}d:abc`)).toBe(String(now + 60_000));
    const digestTtl = await redis.pttl(`${prefix}d:abc`);
    expect(digestTtl).toBeGreaterThan(60_000 + CLEANUP_GRACE_MS - 1000);
    expect(digestTtl).toBeLessThanOrEqual(60_000 + CLEANUP_GRACE_MS);
    const keys = await redis.keys(`${prefix}*`);
    // This instance's write count (see rewind-watch.ts), under a random id of its own.
    const writer = keys.filter((key) => key.startsWith(`${prefix}w:`));
    expect(writer).toHaveLength(1);
    expect(Number(await redis.get(writer[0]!))).toBe(2);
    expect(await redis.pttl(writer[0]!)).toBeGreaterThan(WRITER_TTL_MS - 60_000);
    expect(keys.filter((key) => !writer.includes(key)).sort()).toEqual(
      [
        `${prefix}s:${record.key}`,
        `${prefix}due`,
        `${prefix}uo:ada`,
        `${prefix}n:pending`,
        `${prefix}d:abc`,
        `${prefix}marker`,
      ].sort(),
    );
  });

  it('keeps an open record a day past its expiry or due time, whichever is later', async () => {
    const prefix = uniquePrefix('open-ttl');
    const store = new RedisStore({ redis, prefix });
    const record = trackedSession();
    const now = record.createdAt;
    await store.insert({ record, now });
    const key = `${prefix}s:${record.key}`;
    const lifetime = record.expiresAt - now + DAY_MS;
    expect(await redis.pttl(key)).toBeGreaterThan(lifetime - 1000);
    expect(await redis.pttl(key)).toBeLessThanOrEqual(lifetime);

    // Rescheduled past its expiry, the record lives a day past its new due time.
    await store.lease({ key: record.key, owner: 'w', now, leaseMs: 5000 });
    const dueAt = record.expiresAt + 3 * DAY_MS;
    await store.settle({
      key: record.key,
      owner: 'w',
      update: { state: 'pending', dueAt, attempts: 1 },
      now,
    });
    expect(await redis.pttl(key)).toBeGreaterThan(dueAt - now + DAY_MS - 1000);
    expect(await redis.pttl(key)).toBeLessThanOrEqual(dueAt - now + DAY_MS);
  });

  it('moves a closed record from the open index to the closed one, scored by its purge time', async () => {
    const prefix = uniquePrefix('retain');
    const store = new RedisStore({ redis, prefix });
    const record = trackedSession({ externalUserId: 'bea' });
    const now = record.createdAt;
    await store.insert({ record, now });
    await store.lease({ key: record.key, owner: 'w', now, leaseMs: 5000 });
    await store.settle({
      key: record.key,
      owner: 'w',
      update: { state: 'failed', retainMs: 30_000, attempts: 7 },
      now,
    });

    expect(await redis.zscore(`${prefix}due`, record.key)).toBeNull();
    expect(await redis.zscore(`${prefix}uo:bea`, record.key)).toBeNull();
    expect(await redis.zscore(`${prefix}uc:bea`, record.key)).toBe(String(now + 30_000));
    expect(await redis.zscore(`${prefix}n:failed`, record.key)).toBe(String(now + 30_000));
    expect(await redis.hget(`${prefix}s:${record.key}`, 'purgeAt')).toBe(String(now + 30_000));
    const recordTtl = await redis.pttl(`${prefix}s:${record.key}`);
    expect(recordTtl).toBeGreaterThan(30_000 + CLEANUP_GRACE_MS - 1000);
    expect(recordTtl).toBeLessThanOrEqual(30_000 + CLEANUP_GRACE_MS);
  });

  it('decides retention by the now it is given, while Redis still holds the record', async () => {
    const store = new RedisStore({ redis, prefix: uniquePrefix('logical') });
    const record = trackedSession();
    const now = record.createdAt;
    await store.insert({ record, now });
    await store.lease({ key: record.key, owner: 'w', now, leaseMs: 5000 });
    await store.settle({
      key: record.key,
      owner: 'w',
      update: { state: 'expired', retainMs: 50 },
      now,
    });
    const later = now + 50;
    expect((await store.counts({ now: now + 49 })).expired).toBe(1);
    expect((await store.get({ key: record.key, now: now + 49 }))?.state).toBe('expired');
    expect(await store.get({ key: record.key, now: later })).toBeUndefined();
    expect(await store.attachResult({ key: record.key, result: storedResult(), now: later })).toBe(
      'missing',
    );
    expect(
      await store.findByUser({ externalUserId: record.externalUserId, now: later, limit: 10 }),
    ).toEqual([]);
    expect((await store.counts({ now: later })).expired).toBe(0);
  });

  it('removes a record with no retention at once', async () => {
    const prefix = uniquePrefix('zero');
    const store = new RedisStore({ redis, prefix });
    const record = trackedSession();
    const now = record.createdAt;
    await store.insert({ record, now });
    await store.lease({ key: record.key, owner: 'w', now, leaseMs: 5000 });
    await store.settle({
      key: record.key,
      owner: 'w',
      update: { state: 'expired', retainMs: 0 },
      now,
    });
    expect(await store.get({ key: record.key, now })).toBeUndefined();
    // Only the marker stays, and this instance's write count (for a week after its last
    // write): they tell a Redis that lost this store's data, or went back in time.
    // Matched after the prefix: its random part may end in "w" too.
    const kept = (await redis.keys(`${prefix}*`)).map((key) =>
      key.slice(prefix.length).replace(/^w:.*$/, 'w:<id>'),
    );
    expect(kept.sort()).toEqual(['marker', 'w:<id>']);
  });

  it('gives a key whose retention passed to its new record, for its new user only', async () => {
    const store = new RedisStore({ redis, prefix: uniquePrefix('reuse') });
    const record = trackedSession({ externalUserId: 'cy' });
    const now = record.createdAt;
    await store.insert({ record, now });
    await store.lease({ key: record.key, owner: 'w', now, leaseMs: 5000 });
    await store.settle({
      key: record.key,
      owner: 'w',
      update: { state: 'completed', retainMs: 30 },
      now,
    });
    const later = now + 30;
    const again = { ...record, externalUserId: 'dee', createdAt: later };
    expect((await store.insert({ record: again, now: later })).inserted).toBe(true);
    expect(await store.findByUser({ externalUserId: 'cy', now: later, limit: 10 })).toEqual([]);
    expect(
      (await store.findByUser({ externalUserId: 'dee', now: later, limit: 10 })).map((r) => r.key),
    ).toEqual([record.key]);
    expect(await store.counts({ now: later })).toEqual({
      pending: 1,
      delivering: 0,
      completed: 0,
      expired: 0,
      failed: 0,
    });
  });

  it('round-trips every field, an infinite expiry included', async () => {
    const store = new RedisStore({ redis, prefix: uniquePrefix('fields') });
    const now = Date.now();
    const record = trackedSession({
      state: 'delivering',
      expiresAt: Number.POSITIVE_INFINITY,
      attempts: 3,
      result: storedResult({ secretLabel: 'current', source: 'poll' }),
      lease: { owner: 'someone', until: now + 60_000 },
      dueAt: now + 60_000,
    });
    const { token: _token, ...withoutToken } = trackedSession({ externalUserId: 'é 🧪 user' });
    await store.insert({ record, now });
    await store.insert({ record: withoutToken, now });
    expect(await store.get({ key: record.key, now })).toEqual(record);
    expect(await store.get({ key: withoutToken.key, now })).toStrictEqual(withoutToken);
  });

  it('does not grant a record inserted with a lease before that lease ends', async () => {
    const store = new RedisStore({ redis, prefix: uniquePrefix('held') });
    const now = Date.now();
    const record = trackedSession({ dueAt: now - 10, lease: { owner: 'other', until: now + 80 } });
    await store.insert({ record, now });
    expect(await store.leaseDue({ now, limit: 10, owner: 'w', leaseMs: 5000 })).toEqual([]);
    expect((await store.get({ key: record.key, now }))?.dueAt).toBe(now + 80);
    const later = await store.leaseDue({ now: now + 80, limit: 10, owner: 'w', leaseMs: 5000 });
    expect(later.map((r) => r.lease?.owner)).toEqual(['w']);
  });

  it('works behind an ioredis keyPrefix', async () => {
    const prefix = uniquePrefix('keyprefix');
    const prefixed = connect(undefined, { keyPrefix: 'app:' });
    const store = new RedisStore({ redis: prefixed, prefix });
    const record = trackedSession({ externalUserId: 'eve' });
    const now = record.createdAt;
    await store.insert({ record, now });
    expect(
      (await store.findByUser({ externalUserId: 'eve', now, limit: 10 })).map((r) => r.key),
    ).toEqual([record.key]);
    expect(
      (await store.leaseDue({ now, limit: 10, owner: 'w', leaseMs: 5000 })).map((r) => r.key),
    ).toEqual([record.key]);
    expect(await redis.exists(`app:${prefix}s:${record.key}`)).toBe(1);
    expect(await redis.exists(`app:${prefix}uo:eve`)).toBe(1);
    expect(await redis.exists(`${prefix}s:${record.key}`)).toBe(0);
  });

  it('refuses a lease that would not outlast now and an endless retention', async () => {
    const store = new RedisStore({ redis, prefix: uniquePrefix('args') });
    const record = trackedSession();
    const now = record.createdAt;
    await store.insert({ record, now });
    await expect(store.leaseDue({ now, limit: 10, owner: 'w', leaseMs: 0 })).rejects.toThrow(
      RangeError,
    );
    await expect(store.lease({ key: record.key, owner: 'w', now, leaseMs: 0.5 })).rejects.toThrow(
      /leaseMs/,
    );
    await expect(
      store.remember({ digest: 'x', ttlMs: Number.POSITIVE_INFINITY, now }),
    ).rejects.toThrow(/keeps nothing forever/);
    expect(await store.leaseDue({ now, limit: 0, owner: 'w', leaseMs: 1000 })).toEqual([]);
    expect(
      await store.findByUser({ externalUserId: record.externalUserId, now, limit: 0 }),
    ).toEqual([]);
    const all = await store.leaseDue({
      now,
      limit: Number.POSITIVE_INFINITY,
      owner: 'w',
      leaseMs: 1000,
    });
    expect(all).toHaveLength(1);
    await expect(
      store.settle({
        key: record.key,
        owner: 'w',
        update: { state: 'completed', retainMs: Number.POSITIVE_INFINITY },
        now,
      }),
    ).rejects.toThrow(/retainMs must be a finite number/);
  });
});
