import { describe, expect, it } from 'vitest';
import { countRedisStoreRecords, hasRedisStoreData, RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { trackedSession } from './support/records.js';

// What a command line reads before it acts: whether a prefix holds a store's data, and its
// records by what keyed them. Reading must write nothing: a RedisStore's own calls arm the
// marker and a write count wherever they are pointed.

/** Every key under `prefix`. */
const keysUnder = (redis: ReturnType<typeof connect>, prefix: string) => redis.keys(`${prefix}*`);

describe('inspecting a RedisStore without writing', () => {
  const redis = connect();

  it('finds no data under an unused prefix, and writes nothing there', async () => {
    const prefix = uniquePrefix('inspect-none');
    expect(await hasRedisStoreData({ redis, prefix })).toBe(false);
    const counted = await countRedisStoreRecords({ redis, prefix }, () => 'record');
    expect(counted).toEqual({ found: false, counts: new Map() });
    expect(await keysUnder(redis, prefix)).toEqual([]);
  });

  it('takes the marker and write counts another instance left for no data', async () => {
    const prefix = uniquePrefix('inspect-bookkeeping');
    // What a store pointed at a prefix leaves there at its first call, before any record.
    await new RedisStore({ redis, prefix }).check();
    await redis.set(`${prefix}w:an-instance`, '1', 'PX', 60_000);
    expect(await keysUnder(redis, prefix)).not.toEqual([]);
    expect(await hasRedisStoreData({ redis, prefix })).toBe(false);
  });

  it('counts each record by the class given the start of its fields, writing nothing', async () => {
    const prefix = uniquePrefix('inspect-records');
    const store = new RedisStore({ redis, prefix });
    const now = Date.now();
    const sealedToken = `fvt1.keyA.${'x'.repeat(400)}`;
    await store.insert({
      record: trackedSession({ key: 'k1', externalUserId: 'u1:hash-one', token: sealedToken }),
      now,
    });
    await store.insert({ record: trackedSession({ key: 'k2', externalUserId: 'plain' }), now });
    await store.insert({
      record: trackedSession({
        key: 'k3',
        externalUserId: 'u1:hash-two',
        state: 'failed',
        // As TokenProtectingStore stores a result: one field, sealed.
        result: { sealed: 'fvr1.keyB.abc' } as never,
      }),
      now,
    });
    const before = (await keysUnder(redis, prefix)).sort();
    const seen: unknown[] = [];
    const counted = await countRedisStoreRecords({ redis, prefix }, (record) => {
      seen.push(record);
      return record.user.startsWith('u1:') ? 'hashed' : 'clear';
    });
    expect(counted.found).toBe(true);
    expect(counted.counts).toEqual(
      new Map([
        ['hashed', 2],
        ['clear', 1],
      ]),
    );
    expect(seen).toContainEqual({
      user: 'u1:hash-one',
      token: sealedToken.slice(0, 128),
      result: undefined,
    });
    expect(seen).toContainEqual(
      expect.objectContaining({
        user: 'u1:hash-two',
        result: '{"sealed":"fvr1.keyB.abc"}',
      }),
    );
    expect(await hasRedisStoreData({ redis, prefix })).toBe(true);
    expect((await keysUnder(redis, prefix)).sort()).toEqual(before);
  });

  it('finds the data of a client with a keyPrefix, and of a prefix holding glob characters', async () => {
    const prefix = `${uniquePrefix('inspect-glob')}[a]*?:`;
    const prefixed = connect(undefined, { keyPrefix: 'app:' });
    const store = new RedisStore({ redis: prefixed, prefix });
    await store.insert({ record: trackedSession({ key: 'k1' }), now: Date.now() });
    expect(await hasRedisStoreData({ redis: prefixed, prefix })).toBe(true);
    // The same prefix without the client's keyPrefix is another place.
    expect(await hasRedisStoreData({ redis, prefix })).toBe(false);
    // A glob character matches itself only: a neighbour's prefix is not this one.
    expect(await hasRedisStoreData({ redis: prefixed, prefix: prefix.replace('[a]', 'a') })).toBe(
      false,
    );
  });
});
