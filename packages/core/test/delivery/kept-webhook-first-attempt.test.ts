import { describe, expect, it } from 'vitest';
import { createReceiver, MemoryStore, type VerificationCompletedEvent } from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';
import { drive } from '../support-clock.js';
import {
  MINUTE,
  scriptedServices,
  sessionReply,
  T0,
  UNAVAILABLE,
  untilDelivering,
} from './support/scripted-service.js';

// Simulation seed 6356: a webhook naming a user of two open sessions is kept with each while
// the service cannot be asked, the record `delivering` with the count of the polls that had
// answered pending. The service's answer was then delivered as attempt 5, its handler's failure
// retried as the fifth (hours later, near maxDeliveryAttempts): the result was not delivered
// within the run. A result's first delivery is attempt 1, whatever polls came before.

const SECRET = 'whsec_kept_webhook_attempt_0123456789';
const startService = scriptedServices();

describe('the service answer for a session a webhook was kept with', () => {
  it('is delivered as attempt 1, not after the polls that answered pending', async () => {
    const clock = createTestClock(T0);
    const service = { down: false, completed: false };
    const server = await startService((request) => {
      if (service.down) return UNAVAILABLE;
      const token = request.url.split('/').pop() ?? '';
      return sessionReply(token, 'dana', service.completed && token === 'tok_first');
    }, clock.now);
    const store = new MemoryStore();
    const receiver = createReceiver({
      secret: SECRET,
      client: { apiKey: 'fv_test_kept_webhook', baseUrl: server.url, maxRetries: 0 },
      store,
      clock,
      pollScheduleMs: [MINUTE],
      logger: false,
    });
    const attempts: number[] = [];
    receiver.on('verification.completed', (event: VerificationCompletedEvent) => {
      attempts.push(event.attempt);
    });
    receiver.on('error', () => undefined);
    await receiver.track('tok_first', 'dana');
    await receiver.track('tok_second', 'dana');
    // Two polls of each answer pending.
    for (const _ of [1, 2]) {
      await clock.advance(MINUTE);
      expect((await drive(clock, receiver.sweep(), 100)).pending).toBe(2);
    }
    // The first completes while the service cannot be asked: its webhook names dana alone.
    service.down = true;
    service.completed = true;
    const webhook = await signedDelivery(fixturePayload({ external_user_id: 'dana' }), {
      secret: SECRET,
    });
    const answer = await drive(clock, receiver.receive(webhook), 100);
    expect(JSON.parse(answer.body)).toEqual({ received: true, settling: true });
    // The webhook kept with both sessions once their polls failed.
    await untilDelivering(store, 2, clock.now());

    service.down = false;
    await clock.advance(5 * MINUTE);
    const report = await drive(clock, receiver.sweep(), 100);
    expect(report.delivered).toBe(1);
    expect(attempts).toEqual([1]);
  });
});
