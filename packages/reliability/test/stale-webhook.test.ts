import type { PGlite } from '@electric-sql/pglite';
import {
  createReceiver,
  MemoryStore,
  type Receiver,
  type ReceiverErrorContext,
  type VerificationCompletedEvent,
} from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import { createTestClock } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { PostgresStore } from '@faceverify/postgres';
import { PGliteStore } from '@faceverify/postgres/pglite';
import { RedisStore } from '@faceverify/redis';
import type { PostgresServer, RedisServer } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReceiverServer, startReceiverServer } from './support/receiver-server.js';
import { type StoreServers, startStoreServers } from './support/store-servers.js';
import {
  type CapturedWebhook,
  sendWebhook,
  startWebhookRecorder,
} from './support/webhook-recorder.js';

// Issue: a stale signed webhook re-verified a user. alice's session 1 completes verified
// (its webhook W1 is kept), session 2 completes failed; once W1's digest is forgotten (the
// replay memory expired, or the store was emptied), W1 sent again matched no open session
// and was delivered as a new result without asking the service: alice was verified again.
//
// The guarantee, as docs/guarantees.md states it: with an API client, a webhook that matches
// no open session this Receiver tracks is acknowledged `200 {untracked: true}`, reported as
// `webhook_untracked`, and never delivered.

const MINUTE = 60_000;
const REPLAY_WINDOW_MS = 10 * MINUTE;
const SESSION_LIFETIME_MS = 30 * MINUTE;

/** A kind of store: `make` gives a store, `reset` empties everything it holds. */
interface StoreKind {
  name: string;
  make(): Promise<Store>;
  reset(): Promise<void>;
}

let servers: StoreServers;
let redis: RedisServer;
let postgres: PostgresServer;
const redisClients: Redis[] = [];
const pools: pg.Pool[] = [];
let pglite: PGlite;

beforeAll(async () => {
  servers = await startStoreServers();
  ({ redis, postgres, pglite } = servers);
});

afterAll(async () => {
  for (const client of redisClients) client.disconnect();
  await Promise.all(pools.map((pool) => pool.end()));
  await servers?.stop();
});

const kinds: StoreKind[] = [
  (() => {
    let store = new MemoryStore();
    return {
      name: 'MemoryStore',
      make: async () => store,
      // A process restart: the next Receiver starts with an empty MemoryStore.
      reset: async () => {
        store = new MemoryStore();
      },
    };
  })(),
  {
    name: 'RedisStore',
    make: async () => {
      const client = new Redis(redis.url, { maxRetriesPerRequest: 2 });
      redisClients.push(client);
      return new RedisStore({ redis: client, prefix: 'stale:' });
    },
    // Redis restarted without persistence.
    reset: async () => {
      await redisClients[0]!.flushall();
    },
  },
  {
    name: 'PostgresStore',
    make: async () => {
      const pool = new pg.Pool({ connectionString: postgres.url() });
      pool.on('error', () => undefined);
      pools.push(pool);
      const store = new PostgresStore({ pool, prefix: 'stale_' });
      await store.migrate();
      return store;
    },
    // A database restored from a backup taken before the sessions.
    reset: async () => {
      await pools[0]!.query('truncate table stale_sessions, stale_digests');
    },
  },
  {
    name: 'PGliteStore',
    make: async () => {
      const store = new PGliteStore({ db: pglite, prefix: 'stale_' });
      await store.migrate();
      return store;
    },
    reset: async () => {
      await pglite.exec('truncate table stale_sessions, stale_digests');
    },
  },
];

/** POSTs a kept webhook again, byte for byte. */
async function resend(url: string, webhook: CapturedWebhook) {
  const { status, text } = await sendWebhook(url, webhook);
  return { status, body: JSON.parse(text) as unknown };
}

describe.each(kinds)('a stale signed webhook never re-verifies a user ($name)', (kind) => {
  it(`after its digest expired, and after the store was emptied, W1 is acknowledged and not delivered [${kind.name}]`, async () => {
    const clock = createTestClock(Date.now());
    const emulator: Emulator = await startEmulator({ seed: `stale-${kind.name}` });
    let sessionReads = 0;
    const countingFetch: typeof fetch = (input, init) => {
      if ((init?.method ?? 'GET') === 'GET') sessionReads++;
      return fetch(input, init);
    };
    const verified = new Map<string, boolean>();
    const delivered: VerificationCompletedEvent[] = [];
    const reported: ReceiverErrorContext[] = [];

    const receiverOn = async (): Promise<Receiver> => {
      const receiver = createReceiver({
        secret: emulator.signingSecret,
        client: { apiKey: emulator.apiKey, baseUrl: emulator.url, fetch: countingFetch },
        store: await kind.make(),
        clock,
        replayWindowMs: REPLAY_WINDOW_MS,
        sessionLifetimeMs: SESSION_LIFETIME_MS,
        logger: false,
      });
      receiver.on('verification.completed', (event) => {
        delivered.push(event);
        verified.set(event.data.external_user_id, event.data.status === 'verified');
      });
      receiver.on('error', (_error, context) => {
        reported.push(context);
      });
      return receiver;
    };

    let receiver = await receiverOn();
    let app: ReceiverServer = await startReceiverServer(receiver);
    // The emulator calls the app; a copy of each webhook is kept on the way, as an
    // eavesdropper or a log of raw requests would keep it.
    const recorder = await startWebhookRecorder(() => app.webhookUrl);
    emulator.setCallbackUrl(recorder.url);
    try {
      const first = await receiver.startVerification({ externalUserId: 'alice' });
      await emulator.completeSession(first.token, 'verified');
      await emulator.webhooksSettled();
      const second = await receiver.startVerification({ externalUserId: 'alice' });
      await emulator.completeSession(second.token, 'high_risk');
      await emulator.webhooksSettled();
      expect(delivered.map((event) => [event.sessionToken, event.data.status])).toEqual([
        [first.token, 'verified'],
        [second.token, 'failed'],
      ]);
      expect(verified.get('alice')).toBe(false);
      const w1 = recorder.captured[0]!;

      // 1. Long after: the digest of W1 and both sessions' records are gone.
      await clock.advance(REPLAY_WINDOW_MS + SESSION_LIFETIME_MS + 1);
      const readsBefore = sessionReads;
      const afterExpiry = await resend(app.webhookUrl, w1);
      expect(afterExpiry).toEqual({ status: 200, body: { received: true, untracked: true } });
      expect(delivered).toHaveLength(2);
      expect(verified.get('alice')).toBe(false);
      expect(sessionReads).toBe(readsBefore);
      expect(reported.map((context) => context.code)).toEqual(['webhook_untracked']);

      // 2. The store is emptied, and the app restarts on it.
      await receiver.stop();
      await app.close();
      await kind.reset();
      receiver = await receiverOn();
      app = await startReceiverServer(receiver);
      const afterReset = await resend(app.webhookUrl, w1);
      expect(afterReset).toEqual({ status: 200, body: { received: true, untracked: true } });
      expect(delivered).toHaveLength(2);
      expect(verified.get('alice')).toBe(false);
      expect(reported.map((context) => context.code)).toEqual([
        'webhook_untracked',
        'webhook_untracked',
      ]);
    } finally {
      await receiver.stop();
      await app.close();
      await recorder.close();
      await emulator.close();
    }
  });
});
