import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { trackedSession } from './support/records.js';

// Each store counts its scripts in a `w:` key of its own, kept 7 days, to tell a Redis that
// went back in time. A process that makes a call or two and exits (the CLI) learns nothing
// from it: with `watchRewinds: false` its calls write what they are asked to, and no more.

describe('watchRewinds', () => {
  const redis = connect();

  /** The keys under `prefix` after a store writes a record, and one after it erases a user. */
  async function keysAfterCalls(watchRewinds: boolean | undefined) {
    const prefix = uniquePrefix('rewinds');
    const now = Date.now();
    const writer = new RedisStore({ redis, prefix });
    await writer.insert({ record: trackedSession({ key: 'kept', externalUserId: 'ann' }), now });
    const before = await redis.keys(`${prefix}*`);
    const store = new RedisStore({
      redis,
      prefix,
      ...(watchRewinds === undefined ? {} : { watchRewinds }),
    });
    expect(await store.get({ key: 'kept', now })).toBeDefined();
    expect(await store.forgetUser({ externalUserId: 'ann', now })).toBe(1);
    const after = await redis.keys(`${prefix}*`);
    return { added: after.filter((key) => !before.includes(key)), prefix };
  }

  it('false: the calls of a store write no count of their own', async () => {
    expect((await keysAfterCalls(false)).added).toEqual([]);
  });

  it('by default: the store counts its scripts in a w: key of its own', async () => {
    const { added, prefix } = await keysAfterCalls(undefined);
    expect(added.map((key) => key.slice(prefix.length))).toEqual([expect.stringMatching(/^w:/)]);
  });
});
