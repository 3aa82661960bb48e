import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RedisServer, startRedisServer } from '@faceverify/test-support';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisStore, RedisStoreError } from '../src/index.js';
import { LEASE_DUE } from '../src/scripts/lease-due.js';
import { connect, uniquePrefix } from './support/clients.js';
import { storedResult, trackedSession } from './support/records.js';

const dir = mkdtempSync(join(tmpdir(), 'faceverify-redis-aof-'));
const persistent = ['--appendonly', 'yes'];
let server: RedisServer | undefined;

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function ready(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

/** Settles with the operation's outcome, or with 'still waiting' after `ms`. */
async function within<T>(ms: number, operation: Promise<T>): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'still waiting'>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), ms);
  });
  try {
    return await Promise.race([operation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('Redis restarted under a running receiver (appendonly yes)', () => {
  it('rejects during the outage, then works again on the same client with its data', async () => {
    server = await startRedisServer({ dir, args: persistent });
    // The recommended client settings: fail an operation fast rather than queue it for long.
    const redis = connect(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
    const admin = connect(server.url);
    const store = new RedisStore({ redis, prefix: uniquePrefix('aof') });

    const waiting = trackedSession({ dueAt: Date.now() + 60_000, externalUserId: 'u-aof' });
    const delivered = trackedSession({ externalUserId: 'u-aof' });
    await store.insert({ record: waiting, now: Date.now() });
    await store.insert({ record: delivered, now: Date.now() });
    expect(
      await store.attachResult({ key: delivered.key, result: storedResult(), now: Date.now() }),
    ).toBe('attached');
    expect(await store.remember({ digest: 'aof-digest', ttlMs: 600_000, now: Date.now() })).toBe(
      true,
    );
    await store.leaseDue({ now: Date.now(), limit: 10, owner: 'before', leaseMs: 1 });
    expect(await admin.script('EXISTS', LEASE_DUE.sha)).toEqual([1]);

    await server.stop();

    const during = await within(
      5000,
      store.get({ key: waiting.key, now: Date.now() }).catch((error: unknown) => error),
    );
    expect(during).toBeInstanceOf(RedisStoreError);
    expect((during as RedisStoreError).failure).toBe('unreachable');
    expect((during as RedisStoreError).message).toMatch(
      /^RedisStore\.get failed: Redis did not answer/,
    );
    const sweep = await within(
      5000,
      store.leaseDue({ now: Date.now(), limit: 10, owner: 'x', leaseMs: 1000 }).catch((e) => e),
    );
    expect(sweep).toBeInstanceOf(RedisStoreError);

    server = await startRedisServer({ port: server.port, dir, args: persistent });
    await ready(redis);
    const fresh = connect(server.url);
    // A restarted server has forgotten every script: the store must send them again.
    expect(await fresh.script('EXISTS', LEASE_DUE.sha)).toEqual([0]);

    expect(await store.get({ key: waiting.key, now: Date.now() })).toEqual(waiting);
    expect(await store.remember({ digest: 'aof-digest', ttlMs: 600_000, now: Date.now() })).toBe(
      false,
    );
    expect(await store.counts({ now: Date.now() })).toEqual({
      pending: 1,
      delivering: 1,
      completed: 0,
      expired: 0,
      failed: 0,
    });
    const due = await store.leaseDue({ now: Date.now(), limit: 10, owner: 'after', leaseMs: 5000 });
    expect(due.map((r) => [r.key, r.state, r.lease?.owner])).toEqual([
      [delivered.key, 'delivering', 'after'],
    ]);
    expect(await fresh.script('EXISTS', LEASE_DUE.sha)).toEqual([1]);
    expect(
      await store.settle({
        key: delivered.key,
        owner: 'after',
        update: { state: 'completed', retainMs: 60_000 },
        now: Date.now(),
      }),
    ).toBe(true);
    expect(
      (await store.findByUser({ externalUserId: 'u-aof', now: Date.now(), limit: 10 }))
        .map((r) => r.state)
        .sort(),
    ).toEqual(['completed', 'pending']);
  });
});
