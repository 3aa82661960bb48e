import { expect, it } from 'vitest';
import { createReceiver, MemoryStore, type VerificationCompletedEvent } from '../src/index.js';
import { fixturePayload, signedDelivery } from '../src/testing/index.js';

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
