import { expect, it } from 'vitest';
import { createReceiver, MemoryStore, type VerificationCompletedEvent } from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

it('event.id is stable for a session and does not reveal its token', async () => {
  const secret = 'whsec_event_id';
  const events: VerificationCompletedEvent[] = [];
  const make = () =>
    createReceiver({
      secret,
      client: { apiKey: 'fv_test_unused', baseUrl: 'http://127.0.0.1:9' },
      // No service to confirm with: this test is about the id of a delivered result.
      confirmWebhooks: false,
      store: new MemoryStore(),
    }).on('verification.completed', (event) => {
      events.push(event);
    });
  const token = 'tok_0123456789abcdefghijklmnopqrstuvwxyzABCDEF';
  for (const receiver of [make(), make()]) {
    await receiver.track(token, 'user_123');
    await receiver.receive(await signedDelivery(fixturePayload(), { secret }));
  }
  expect(events).toHaveLength(2);
  expect(events[0]?.id).toMatch(/^evt_[0-9a-f]{32}$/);
  expect(events[1]?.id).toBe(events[0]?.id);
  expect(events[0]?.id).not.toContain(token.slice(4, 10));
  expect(events[0]?.sessionToken).toBe(token);
});

it('a dead letter delivered again keeps the event.id of its failed attempts', async () => {
  // A handler may have done its work and failed after it (or its success went unrecorded):
  // an application that deduplicates by event.id must recognise the redelivery.
  const secret = 'whsec_event_id_dead_letter';
  const retryMs = 10_000;
  const clock = createTestClock();
  const receiver = createReceiver({
    secret,
    client: { apiKey: 'fv_test_unused', baseUrl: 'http://127.0.0.1:9' },
    confirmWebhooks: false,
    store: new MemoryStore(),
    clock,
    maxDeliveryAttempts: 2,
    retryScheduleMs: [retryMs],
  });
  const seen: VerificationCompletedEvent[] = [];
  let fixed = false;
  receiver.on('verification.completed', (event) => {
    seen.push(event);
    if (!fixed) throw new Error('the users table is locked');
  });
  const token = 'tok_dead_letter_0123456789abcdefghijklmnopqrstuv';
  await receiver.track(token, 'user_123');
  await receiver.receive(await signedDelivery(fixturePayload(), { secret }));
  await clock.advance(retryMs);
  expect(await receiver.sweep()).toMatchObject({ leased: 1, failed: 1 });
  const [letter] = (await receiver.deadLetters.list()).deadLetters;
  expect(letter!.key).toMatch(/^t1:/);
  fixed = true;
  expect(await receiver.deadLetters.redeliver(letter!.key)).toBe(true);
  expect(await receiver.sweep()).toMatchObject({ delivered: 1 });
  expect(seen.map((event) => event.attempt)).toEqual([1, 2, 1]);
  // Closed, the record dropped its token: the redelivery has none, and the same id.
  expect(seen[2]!.sessionToken).toBeUndefined();
  expect(seen[0]!.sessionToken).toBe(token);
  expect(new Set(seen.map((event) => event.id))).toEqual(new Set([seen[0]!.id]));
  expect(seen[0]!.id).toMatch(/^evt_[0-9a-f]{32}$/);
});
