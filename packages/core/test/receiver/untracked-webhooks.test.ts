import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createReceiver,
  MemoryStore,
  type ReceiverErrorContext,
  type VerificationCompletedEvent,
} from '../../src/index.js';
import { fixturePayload, signedDelivery } from '../../src/testing/index.js';
import { startScriptedServer } from '../client/scripted-server.js';

const SECRET = 'whsec_untracked_0123456789';

async function receiverWith(options: Parameters<typeof createReceiver>[0]) {
  const delivered: VerificationCompletedEvent[] = [];
  const reported: ReceiverErrorContext[] = [];
  const receiver = createReceiver({
    secret: SECRET,
    store: new MemoryStore(),
    logger: false,
    ...options,
  })
    .on('verification.completed', (event) => {
      delivered.push(event);
    })
    .on('error', (_error, context) => {
      reported.push(context);
    });
  const answer = await receiver.receive(
    await signedDelivery(fixturePayload({ external_user_id: 'nobody_tracked' }), {
      secret: SECRET,
    }),
  );
  return { answer, delivered, reported };
}

describe('a webhook that matches no tracked session', () => {
  it('is acknowledged, reported as webhook_untracked and not delivered when the Receiver has a client', async () => {
    // Nothing may be asked of the service: it answers every request with a failure.
    const service = await startScriptedServer(() => ({ status: 500, json: {} }));
    try {
      const { answer, delivered, reported } = await receiverWith({
        client: { apiKey: 'fv_test_untracked', baseUrl: service.url },
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ received: true, untracked: true });
      expect(delivered).toHaveLength(0);
      expect(reported).toEqual([{ stage: 'confirm', code: 'webhook_untracked' }]);
      expect(service.requests).toHaveLength(0);
    } finally {
      await service.close();
    }
  });

  it("is delivered with confirmed: false under untrackedWebhooks: 'deliver'", async () => {
    const service = await startScriptedServer(() => ({ status: 500, json: {} }));
    try {
      const { answer, delivered } = await receiverWith({
        client: { apiKey: 'fv_test_untracked', baseUrl: service.url },
        untrackedWebhooks: 'deliver',
      });
      expect(answer.status).toBe(200);
      expect(delivered).toHaveLength(1);
      expect(delivered[0]).toMatchObject({ source: 'webhook', confirmed: false });
      expect(delivered[0]!.sessionToken).toBeUndefined();
      expect(service.requests).toHaveLength(0);
    } finally {
      await service.close();
    }
  });

  it('is delivered with confirmed: false by a Receiver without a client (nothing is tracked)', async () => {
    const { answer, delivered } = await receiverWith({ client: false });
    expect(answer.status).toBe(200);
    expect(delivered.map((event) => event.confirmed)).toEqual([false]);
  });

  it("refuses untrackedWebhooks: 'ignore' without a client, saying why", () => {
    expect(() =>
      createReceiver({ secret: SECRET, client: false, untrackedWebhooks: 'ignore' }),
    ).toThrow(ConfigurationError);
    expect(() =>
      createReceiver({ secret: SECRET, client: false, untrackedWebhooks: 'ignore' }),
    ).toThrow(/every result would be ignored/);
  });
});
