import { createReceiver, type VerificationCompletedEvent } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';

const SECRET = 'whsec_redis_receiver_test_41c2';

describe('receivers sharing a RedisStore', () => {
  it('hand one webhook, delivered to every instance at once, to the handlers once', async () => {
    const prefix = uniquePrefix('receivers');
    const events: VerificationCompletedEvent[] = [];
    const receivers = Array.from({ length: 3 }, () => {
      const receiver = createReceiver({
        secret: SECRET,
        client: false,
        store: new RedisStore({ redis: connect(), prefix }),
      });
      receiver.on('verification.completed', (event) => {
        events.push(event);
      });
      return receiver;
    });
    const delivery = await signedDelivery(fixturePayload({ external_user_id: 'u-shared' }), {
      secret: SECRET,
    });

    const responses = await Promise.all(
      receivers.flatMap((receiver) => [receiver.receive(delivery), receiver.receive(delivery)]),
    );

    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(events).toHaveLength(1);
    expect(events[0]!.data.external_user_id).toBe('u-shared');
    // Matched to no session, the delivery keeps no record; its digest alone stops replays.
    const store = new RedisStore({ redis: connect(), prefix });
    expect(
      await store.findByUser({ externalUserId: 'u-shared', now: Date.now(), limit: 10 }),
    ).toEqual([]);
    const replay = await receivers[2]!.receive(delivery);
    expect(JSON.parse(replay.body)).toEqual({ received: true, duplicate: true });
    expect(events).toHaveLength(1);
  });
});
