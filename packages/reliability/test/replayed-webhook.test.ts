import {
  createReceiver,
  MemoryStore,
  type ReceiverErrorContext,
  type VerificationCompletedEvent,
} from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import { createTestClock } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { RedisStore } from '@faceverify/redis';
import { type RedisServer, startRedisServer } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReceiverServer, startReceiverServer } from './support/receiver-server.js';
import {
  sendWebhook as send,
  startWebhookRecorder as startRecorder,
} from './support/webhook-recorder.js';

const MINUTE = 60_000;
const REPLAY_WINDOW_MS = 10 * MINUTE;
const SESSION_LIFETIME_MS = 30 * MINUTE;

let redis: RedisServer;
const clients: Redis[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await redis.stop();
});

const stores: [string, () => Store][] = [
  ['MemoryStore', () => new MemoryStore()],
  [
    'RedisStore',
    () => {
      const client = new Redis(redis.url, { maxRetriesPerRequest: 2 });
      clients.push(client);
      return new RedisStore({ redis: client, prefix: `replay:${clients.length}:` });
    },
  ],
];

describe.each(stores)(
  'a replayed webhook never becomes a later session’s result (%s)',
  (storeName, makeStore) => {
    let emulator: Emulator;
    let app: ReceiverServer;
    let recorder: Awaited<ReturnType<typeof startRecorder>>;

    it(`alice’s old verified webhook, sent again after the replay window, does not verify her next session [${storeName}]`, async () => {
      const clock = createTestClock(Date.now());
      emulator = await startEmulator({ seed: 'replay' });
      const receiver = createReceiver({
        secret: emulator.signingSecret,
        client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
        store: makeStore(),
        clock,
        replayWindowMs: REPLAY_WINDOW_MS,
        sessionLifetimeMs: SESSION_LIFETIME_MS,
      });
      const delivered: VerificationCompletedEvent[] = [];
      const reported: ReceiverErrorContext[] = [];
      receiver.on('verification.completed', (event) => {
        delivered.push(event);
      });
      receiver.on('error', (_error, context) => {
        reported.push(context);
      });
      app = await startReceiverServer(receiver);
      recorder = await startRecorder(() => app.webhookUrl);
      emulator.setCallbackUrl(recorder.url);
      try {
        // Session 1 completes verified; its signed webhook is kept.
        const first = await receiver.startVerification({ externalUserId: 'alice' });
        await emulator.completeSession(first.token, 'verified');
        await emulator.webhooksSettled();
        expect(delivered.map((event) => [event.sessionToken, event.data.status])).toEqual([
          [first.token, 'verified'],
        ]);
        const kept = recorder.captured[0]!;

        // Long after, alice starts session 2 and the old webhook is sent again.
        await clock.advance(REPLAY_WINDOW_MS + SESSION_LIFETIME_MS + 1);
        const second = await receiver.startVerification({ externalUserId: 'alice' });
        const replay = await send(app.webhookUrl, kept);
        expect(replay.status).toBe(200);
        expect(JSON.parse(replay.text)).toMatchObject({ received: true, contradicted: true });
        expect(delivered).toHaveLength(1);
        expect(reported.map((context) => context.code)).toEqual(['webhook_contradicted']);
        // The report names the session by a short id, never by its usable token.
        expect(JSON.stringify(reported)).not.toContain(second.token);

        // Session 2 really fails: the handler sees failed, and confirm() says failed.
        await emulator.completeSession(second.token, 'high_risk');
        await emulator.webhooksSettled();
        const forSecond = delivered.filter((event) => event.sessionToken === second.token);
        expect(forSecond.map((event) => event.data.status)).toEqual(['failed']);
        expect((await receiver.confirm(second.token)).status).toBe('failed');
      } finally {
        await receiver.stop();
        await app.close();
        await recorder.close();
        await emulator.close();
      }
    });
  },
);
