import { describe, expect, it } from 'vitest';
import {
  createReceiver,
  MemoryStore,
  type VerificationCompletedEvent,
  type VerificationExpiredEvent,
} from '../../src/index.js';
import { createTestClock } from '../../src/testing/index.js';
import { drive, until } from '../support-clock.js';
import {
  MINUTE,
  scriptedServices,
  sessionReply,
  T0,
  UNAVAILABLE,
  untilDelivering,
} from './support/scripted-service.js';

// Simulation seed 24651: a sweep polled a completed result and its handler ran on (minutes)
// when the process died. The result was held by that process only: the instance that took the
// session over had to ask the service again, which rate-limited it until the session's
// lifetime was over, and gave the session up (guarantee 23): a result the service completed,
// lost. While handlers run on, a polled result is kept in the store.

const SECRET = 'whsec_polled_result_kept_0123456789';
const startService = scriptedServices();

describe('a result polling found, while its handlers run on', () => {
  it('is delivered from the store by the instance that takes over after the process died', async () => {
    // The service answers the first poll, then nothing but 503 until past the lifetime.
    const server = await startService((_request, index) =>
      index === 0 ? sessionReply('tok_bob', 'bob', true) : UNAVAILABLE,
    );
    const store = new MemoryStore();
    const instance = (clock: ReturnType<typeof createTestClock>) =>
      createReceiver({
        secret: SECRET,
        client: { apiKey: 'fv_test_polled_result_kept', baseUrl: server.url, maxRetries: 0 },
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
    // The result kept: the record waits for delivery, not for a poll.
    await untilDelivering(store, 1, T0 + MINUTE);

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
