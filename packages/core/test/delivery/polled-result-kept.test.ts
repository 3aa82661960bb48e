import { afterEach, describe, expect, it } from 'vitest';
import {
  createReceiver,
  MemoryStore,
  type VerificationCompletedEvent,
  type VerificationExpiredEvent,
} from '../../src/index.js';
import { createTestClock, fixturePayload } from '../../src/testing/index.js';
import { type Reply, type ScriptedServer, startScriptedServer } from '../client/scripted-server.js';
import { drive, until } from '../support-clock.js';

// Simulation seed 24651: a sweep polled a completed result and its handler ran on (minutes)
// when the process died. The result was held by that process only: the instance that took the
// session over had to ask the service again, which rate-limited it until the session's
// lifetime was over, and gave the session up (guarantee 23): a result the service completed,
// lost. While handlers run on, a polled result is kept in the store.

const SECRET = 'whsec_polled_result_kept_0123456789';
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const { event: _event, extra: _extra, ...RESULT } = fixturePayload({ external_user_id: 'bob' });
const completed: Reply = {
  status: 200,
  json: { token: 'tok_bob', status: 'verified', external_user_id: 'bob', result: RESULT },
};
const unavailable: Reply = {
  status: 503,
  json: { error: 'service_unavailable', message: 'The service is down.' },
};

describe('a result polling found, while its handlers run on', () => {
  it('is delivered from the store by the instance that takes over after the process died', async () => {
    // The service answers the first poll, then nothing but 503 until past the lifetime.
    server = await startScriptedServer((_request, index) =>
      index === 0 ? completed : unavailable,
    );
    const store = new MemoryStore();
    const instance = (clock: ReturnType<typeof createTestClock>) =>
      createReceiver({
        secret: SECRET,
        client: { apiKey: 'fv_test_polled_result_kept', baseUrl: server!.url, maxRetries: 0 },
        store,
        clock,
        sessionLifetimeMs: 30 * MINUTE,
        pollScheduleMs: [MINUTE],
        logger: false,
      });
    // The first process: its clock stands still once it died, so it renews no lease.
    const dyingClock = createTestClock(T0);
    const dying = instance(dyingClock);
    let handlerStarted = false;
    dying.on('verification.completed', () => {
      handlerStarted = true;
      return new Promise<void>(() => undefined);
    });
    dying.on('error', () => undefined);
    await dying.track('tok_bob', 'bob');
    await dyingClock.advance(MINUTE);
    void dying.sweep();
    await until(() => handlerStarted);
    // The result kept: the record waits for delivery, not for a poll (a few turns at most).
    for (let turn = 0; turn < 100; turn++) {
      if ((await store.counts({ now: T0 + MINUTE })).delivering === 1) break;
      await new Promise((resolve) => setImmediate(resolve));
    }

    const clock = createTestClock(T0 + 31 * MINUTE);
    const successor = instance(clock);
    const delivered: VerificationCompletedEvent[] = [];
    const expired: VerificationExpiredEvent[] = [];
    successor.on('verification.completed', (event) => {
      delivered.push(event);
    });
    successor.on('verification.expired', (event) => {
      expired.push(event);
    });
    successor.on('error', () => undefined);
    const report = await drive(clock, successor.sweep(), 100);

    expect(expired).toEqual([]);
    expect(report.delivered).toBe(1);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ source: 'poll', sessionToken: 'tok_bob' });
    expect(delivered[0]!.data.status).toBe('verified');
    // It asked the service once: the successor delivered what the store kept.
    expect(server.requests).toHaveLength(1);
  });
});
