import { ConfigurationError } from '@faceverify/core';
import { storeContractCases } from '@faceverify/core/testing';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { clusterOfOne, useClusterServer } from './support/cluster.js';
import { storedResult, trackedSession } from './support/records.js';

// A cluster of one node that owns every slot: enough to run the store through ioredis'
// Cluster client and to check where its keys land.
const server = useClusterServer();
let cluster: Cluster;

beforeAll(async () => {
  cluster = await clusterOfOne(server());
});

afterAll(() => {
  cluster?.disconnect();
});

const taggedPrefix = () => `{${uniquePrefix('cluster').slice(0, -1)}}:`;

describe('RedisStore on a Redis Cluster', () => {
  it('refuses a prefix without a hash tag', () => {
    expect(() => new RedisStore({ redis: cluster, prefix: 'faceverify:' })).toThrow(
      ConfigurationError,
    );
    expect(() => new RedisStore({ redis: cluster, prefix: 'fv:{}:' })).toThrow(/hash tag/);
    expect(() => new RedisStore({ redis: cluster })).toThrow(/hash tag/);
  });

  it('keeps every key of the store in one slot', async () => {
    const prefix = taggedPrefix();
    const store = new RedisStore({ redis: cluster, prefix });
    const record = trackedSession();
    const now = Date.now();
    await store.insert({ record, now });
    await store.insert({
      record: trackedSession({ externalUserId: record.externalUserId }),
      now,
      maxOpenPerUser: 1,
      displacedRetainMs: 60_000,
    });
    const other = trackedSession();
    await store.insert({ record: other, now });
    await store.attachResult({ key: other.key, result: storedResult(), now });
    await store.leaseDue({ now, limit: 10, owner: 'w', leaseMs: 5000 });
    await store.settle({
      key: other.key,
      owner: 'w',
      update: { state: 'completed', retainMs: 60_000 },
      now,
    });
    await store.remember({ digest: 'digest', ttlMs: 60_000, now });
    expect(
      (await store.findByUser({ externalUserId: record.externalUserId, now, limit: 10 })).length,
    ).toBe(2);
    expect((await store.counts({ now })).expired).toBe(1);

    const node = connect(server().url);
    const keys = await node.keys(`${prefix.replace(/[{}*?[\]]/g, '\\$&')}*`);
    // Records, due set, both user indexes, the state sets and the digest.
    expect(keys.length).toBeGreaterThanOrEqual(10);
    const slots = new Set(await Promise.all(keys.map((key) => node.cluster('KEYSLOT', key))));
    expect(slots.size).toBe(1);
  });

  describe('keeps the Store contract', () => {
    for (const check of storeContractCases(
      () => new RedisStore({ redis: cluster, prefix: taggedPrefix() }),
    )) {
      it(`${check.name} [RedisStore, Redis Cluster]`, check.run);
    }
  });
});
