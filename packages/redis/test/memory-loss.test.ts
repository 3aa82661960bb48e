import { createReceiver, type StoreAlarm } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { type RedisServer, startRedisServer } from '@faceverify/test-support';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisStore, RedisStoreError } from '../src/index.js';
import { evictionMessage } from '../src/memory-watch.js';
import { connect, uniquePrefix } from './support/clients.js';
import { storedResult, trackedSession } from './support/records.js';

// Issue 19, item 3: a Redis that forgets. Each test starts the redis-server it needs, with
// the memory settings or restarts it is about.
const SECRET = 'whsec_redis_memory_loss_test_7d1e';
const servers: RedisServer[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

async function server(args: string[] = [], port?: number): Promise<RedisServer> {
  const started = await startRedisServer({ args, ...(port === undefined ? {} : { port }) });
  servers.push(started);
  return started;
}

function ready(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

function alarmsOf(store: RedisStore): StoreAlarm[] {
  const alarms: StoreAlarm[] = [];
  store.onAlarm((alarm) => alarms.push(alarm));
  return alarms;
}

async function evictedKeys(redis: Redis): Promise<number> {
  return Number(/^evicted_keys:(\d+)/m.exec(await redis.info('stats'))?.[1]);
}

describe('the eviction policy, checked on first use', () => {
  for (const policy of ['allkeys-lru', 'volatile-lru', 'volatile-ttl']) {
    it(`refuses ${policy} with the fix, and works once the policy is noeviction`, async () => {
      const redis = connect((await server(['--maxmemory-policy', policy])).url);
      const store = new RedisStore({ redis, prefix: uniquePrefix('policy') });
      const alarms = alarmsOf(store);

      const refused = await store
        .insert({ record: trackedSession(), now: Date.now() })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RedisStoreError);
      expect((refused as RedisStoreError).failure).toBe('misconfigured');
      expect((refused as RedisStoreError).operation).toBe('insert');
      expect((refused as RedisStoreError).message).toContain(`maxmemory-policy is ${policy}`);
      expect((refused as RedisStoreError).message).toContain(
        'CONFIG SET maxmemory-policy noeviction',
      );
      expect((refused as RedisStoreError).message).toContain('allowEviction: true');
      await expect(store.check()).rejects.toThrow(/refuses to run/);

      await redis.config('SET', 'maxmemory-policy', 'noeviction');
      await store.check();
      const record = trackedSession();
      expect((await store.insert({ record, now: Date.now() })).inserted).toBe(true);
      expect(alarms).toEqual([]);
    });
  }

  it('runs on an evicting Redis when allowed, with one store_eviction_risk alarm', async () => {
    const redis = connect((await server(['--maxmemory-policy', 'volatile-lru'])).url);
    const store = new RedisStore({ redis, prefix: uniquePrefix('allowed'), allowEviction: true });
    const alarms = alarmsOf(store);
    await Promise.all([
      store.insert({ record: trackedSession(), now: Date.now() }),
      store.remember({ digest: 'd', ttlMs: 60_000, now: Date.now() }),
    ]);
    await store.counts({ now: Date.now() });
    expect(alarms.map((alarm) => alarm.code)).toEqual(['store_eviction_risk']);
    expect(alarms[0]!.message).toContain('volatile-lru');
    expect(alarms[0]!.message).toContain('noeviction');
  });

  it('says what to check where CONFIG is disabled (managed Redis), and works', async () => {
    const redis = connect((await server(['--rename-command', 'CONFIG', 'CONFIG_f0b4a9e1c2'])).url);
    const store = new RedisStore({ redis, prefix: uniquePrefix('managed') });
    const alarms = alarmsOf(store);
    const record = trackedSession();
    expect((await store.insert({ record, now: Date.now() })).inserted).toBe(true);
    expect(alarms.map((alarm) => alarm.code)).toEqual(['store_eviction_risk']);
    expect(alarms[0]!.message).toMatch(/could not read Redis' maxmemory-policy/);
    expect(alarms[0]!.message).toMatch(/provider's settings/);
  });
});

describe('keys evicted under memory pressure', () => {
  it('counts the evicted keys as written: 1 key, 2 keys', () => {
    expect(evictionMessage(1)).toMatch(/^RedisStore: Redis evicted 1 key under memory pressure;/);
    expect(evictionMessage(2)).toMatch(/^RedisStore: Redis evicted 2 keys under memory pressure;/);
  });

  for (const policy of ['allkeys-lru', 'volatile-lru']) {
    it(`raises store_reset at the next sweep when Redis evicted keys (${policy})`, async () => {
      const redis = connect(
        (await server(['--maxmemory', '4mb', '--maxmemory-policy', policy])).url,
      );
      const store = new RedisStore({ redis, prefix: uniquePrefix('evict'), allowEviction: true });
      const alarms = alarmsOf(store);
      const now = Date.now();
      const bulky = storedResult({
        payload: fixturePayload({ reason: 'x'.repeat(4000) }),
      });
      // Writes until Redis reports evictions: the positive signal, not a guessed amount.
      let written = 0;
      while ((await evictedKeys(redis)) === 0) {
        await Promise.all(
          Array.from({ length: 100 }, () =>
            store.insert({
              record: trackedSession({ state: 'delivering', dueAt: now + 60_000, result: bulky }),
              now,
            }),
          ),
        );
        written += 100;
        expect(written).toBeLessThan(100_000);
      }
      // The pressure ends here, so the sweeps below see the loss already made and nothing
      // new (a sweep's own writes would otherwise evict more keys, a new loss of its own).
      await redis.config('SET', 'maxmemory', '0');

      // The loss is reported by the next sweep at the latest. Under allkeys-lru Redis may
      // also evict the store's marker key, and a write that finds it gone reports the loss
      // at once: either way, every alarm after the first-use one is a store_reset.
      await store.leaseDue({ now, limit: 10, owner: 'w', leaseMs: 5000 });
      const codes = alarms.map((alarm) => alarm.code);
      expect(codes[0]).toBe('store_eviction_risk');
      expect(codes.length).toBeGreaterThan(1);
      expect(new Set(codes.slice(1))).toEqual(new Set(['store_reset']));
      for (const alarm of alarms.slice(1)) expect(alarm.message).toContain('noeviction');
      if (policy === 'volatile-lru') {
        // The marker has no TTL, so volatile-lru never evicts it: the sweep's count tells.
        expect(codes).toEqual(['store_eviction_risk', 'store_reset']);
        expect(alarms[1]!.message).toMatch(/^RedisStore: Redis evicted \d+ keys? under memory/);
      }

      // Nothing new was evicted: no further alarm for the same loss.
      const reported = alarms.length;
      await store.leaseDue({ now, limit: 10, owner: 'w', leaseMs: 5000 });
      expect(alarms).toHaveLength(reported);
    });
  }
});

describe('the write count key evicted', () => {
  // Replays a CI failure: under allkeys-lru, Redis evicted the instance's write count key
  // (rewind-watch.ts) along with records, and the next script read the missing count as a
  // failover that lost writes (store_rewound). The eviction was the cause, reported as such
  // by the next sweep.
  it('is reported as the eviction (store_reset), not as Redis going back in time', async () => {
    const redis = connect(
      (await server(['--maxmemory', '4mb', '--maxmemory-policy', 'volatile-lru'])).url,
    );
    const prefix = uniquePrefix('evict-writer');
    const store = new RedisStore({ redis, prefix, allowEviction: true });
    const alarms = alarmsOf(store);
    expect((await store.insert({ record: trackedSession(), now: Date.now() })).inserted).toBe(true);
    // Keys outside the store, with a TTL, until Redis evicts (the positive signal).
    const filler = 'f'.repeat(4000);
    for (let batch = 0; (await evictedKeys(redis)) === 0; batch++) {
      expect(batch).toBeLessThan(1000);
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => redis.set(`filler:${batch}:${i}`, filler, 'EX', 600)),
      );
    }
    await redis.config('SET', 'maxmemory', '0');
    // Which keys volatile-lru picks is Redis' choice: the write count key is made one of them.
    const [writerKey, ...others] = await redis.keys(`${prefix}w:*`);
    expect(writerKey).toBeDefined();
    expect(others).toEqual([]);
    await redis.del(writerKey!);

    expect((await store.insert({ record: trackedSession(), now: Date.now() })).inserted).toBe(true);
    expect(alarms.map((alarm) => alarm.code)).toEqual(['store_eviction_risk']);
    // The sweep is where evictions are reported, once.
    await store.leaseDue({ now: Date.now(), limit: 10, owner: 'w', leaseMs: 5000 });
    expect(alarms.map((alarm) => alarm.code)).toEqual(['store_eviction_risk', 'store_reset']);
    expect(alarms[1]!.message).toMatch(/^RedisStore: Redis evicted \d+ keys under memory/);
  });
});

describe('Redis restarted without persistence under a running Receiver', () => {
  it('raises one store_reset to the error handlers and the log, re-arms, keeps working, runs nothing twice', async () => {
    const first = await server();
    const redis = connect(first.url, { retryStrategy: () => 50 });
    const prefix = uniquePrefix('restart');
    const errorLog: { message: string; code: unknown }[] = [];
    const receiver = createReceiver({
      secret: SECRET,
      client: false,
      store: new RedisStore({ redis, prefix }),
      logger: { error: (message, fields) => errorLog.push({ message, code: fields?.code }) },
    });
    const handled: string[] = [];
    const reported: { error: unknown; code: string | undefined }[] = [];
    receiver.on('verification.completed', (event) => {
      handled.push(event.data.external_user_id);
    });
    receiver.on('error', (error, context) => {
      if (context.stage === 'store') reported.push({ error, code: context.code });
    });
    // Another instance sharing the store: whichever finds the loss first reports it.
    const other = new RedisStore({ redis, prefix });
    const otherAlarms = alarmsOf(other);

    const delivery = async (user: string) =>
      signedDelivery(fixturePayload({ external_user_id: user }), { secret: SECRET });
    expect((await receiver.receive(await delivery('u-before'))).status).toBe(200);
    expect(handled).toEqual(['u-before']);
    expect(reported).toEqual([]);

    await first.stop();
    await server([], first.port);
    await ready(redis);
    expect(await redis.exists(`${prefix}marker`)).toBe(0);

    // Several operations of two instances find the data gone at once. The receiver's store
    // had seen the marker, so it reports the loss, once; the other one is used for the first
    // time and cannot tell a loss from a fresh install.
    await Promise.all([
      receiver.sweep(),
      receiver.sweep(),
      other.counts({ now: Date.now() }),
      other.leaseDue({ now: Date.now(), limit: 10, owner: 'other', leaseMs: 5000 }),
    ]);
    const resets = reported.filter((report) => report.code === 'store_reset');
    expect(resets).toHaveLength(1);
    expect(otherAlarms).toEqual([]);
    expect(errorLog.filter((line) => line.code === 'store_reset')).toHaveLength(resets.length);
    for (const alarm of [...resets.map((report) => report.error), ...otherAlarms]) {
      expect(alarm).toMatchObject({ code: 'store_reset', name: 'StoreAlarm' });
      expect((alarm as Error).message).toMatch(/Redis lost the data of this store/);
      expect((alarm as Error).message).toMatch(/appendonly yes/);
    }
    expect(await redis.exists(`${prefix}marker`)).toBe(1);

    // Re-armed: the store keeps working, and the loss is not reported again.
    await receiver.sweep();
    expect((await receiver.receive(await delivery('u-after'))).status).toBe(200);
    expect(handled).toEqual(['u-before', 'u-after']);
    expect(reported.filter((report) => report.code === 'store_reset')).toHaveLength(resets.length);
    expect(otherAlarms).toEqual([]);
  });
});
