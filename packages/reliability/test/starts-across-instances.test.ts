import { ApiError, createReceiver, type Receiver } from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { PostgresStore } from '@faceverify/postgres';
import { RedisStore } from '@faceverify/redis';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StoreServers, startStoreServers } from './support/store-servers.js';

// Issue 47: a retry must not start a second verification, on any instance. Three Receivers,
// each with its own connection to one real Redis (or its own pool to one PostgreSQL), start
// sessions of one user at once; the emulator counts the sessions the service created.

let servers: StoreServers;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  servers = await startStoreServers();
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await servers?.stop();
});

const GENEROUS = {
  verify: { limit: 100_000, windowMs: 60_000 },
  complete: { limit: 100_000, windowMs: 60_000 },
};

interface SharedStore {
  name: string;
  /** A store of one instance: its own connection (or pool) to the one server. */
  open(): Promise<Store>;
}

function redisShared(): SharedStore {
  const prefix = `starts:${Date.now()}:`;
  return {
    name: 'RedisStore',
    open: async () => {
      const redis = new Redis(servers.redis.url, { maxRetriesPerRequest: 2 });
      redis.on('error', () => undefined);
      cleanups.push(async () => redis.disconnect());
      return new RedisStore({ redis, prefix });
    },
  };
}

function postgresShared(): SharedStore {
  const prefix = `starts_${Date.now()}_`;
  return {
    name: 'PostgresStore',
    open: async () => {
      const pool = new pg.Pool({ connectionString: servers.postgres.url(), max: 5 });
      pool.on('error', () => undefined);
      cleanups.push(() => pool.end());
      const store = new PostgresStore({ pool, prefix });
      await store.migrate();
      return store;
    },
  };
}

async function instancesOn(shared: SharedStore, emulator: Emulator): Promise<Receiver[]> {
  const instances: Receiver[] = [];
  for (let i = 0; i < 3; i++) {
    instances.push(
      createReceiver({
        secret: emulator.signingSecret,
        client: { apiKey: emulator.apiKey, baseUrl: emulator.url, maxRetries: 0 },
        store: await shared.open(),
        logger: false,
      }),
    );
  }
  return instances;
}

describe.each([redisShared, postgresShared])('starts shared by 3 instances', (make) => {
  const shared = make();

  it(`${shared.name}: 50 concurrent starts of one user make one POST /v1/verify, and all get its link`, async () => {
    // The service holds its answer a while: the other instances ask while it is created.
    const emulator = await startEmulator({
      seed: `starts-${shared.name}`,
      rateLimits: GENEROUS,
      faults: { delayVerify: { ms: 300, next: 1 } },
    });
    cleanups.push(() => emulator.close());
    const instances = await instancesOn(shared, emulator);

    const started = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        instances[i % 3]!.startVerification({ externalUserId: 'ada' }),
      ),
    );

    expect(emulator.stats().sessions.pending).toBe(1);
    expect(new Set(started.map((s) => s.verifyUrl)).size).toBe(1);
    expect(new Set(started.map((s) => s.token)).size).toBe(1);
    // Later, from any instance: the same session, nothing sent.
    const later = await instances[2]!.startVerification({ externalUserId: 'ada' });
    expect(later).toMatchObject({ token: started[0]!.token, reused: true });
    expect(emulator.stats().sessions.pending).toBe(1);
  }, 60_000);

  it(`${shared.name}: a start the service carried out but answered 503 is told, and the retry starts at once`, async () => {
    const emulator = await startEmulator({
      seed: `ambiguous-${shared.name}`,
      rateLimits: GENEROUS,
      faults: { verify5xx: { next: 1, created: true } },
    });
    cleanups.push(() => emulator.close());
    const [first, second] = await instancesOn(shared, emulator);
    const alerts: string[] = [];
    first!.on('alert', (alert) => {
      alerts.push(alert.code);
    });

    const failed = await first!
      .startVerification({ externalUserId: 'bob' })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ApiError);
    expect(alerts).toEqual(['start_ambiguous']);
    // The retry, on another instance, is not kept waiting for the failed start's claim.
    const retried = await second!.startVerification({ externalUserId: 'bob' });
    expect(retried.reused).toBe(false);
    // Two sessions at the service: the one the 503 hid, which the Receiver cannot see, and this.
    expect(emulator.stats().sessions.pending).toBe(2);
  }, 60_000);
});
