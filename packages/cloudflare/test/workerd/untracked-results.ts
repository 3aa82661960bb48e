import { createReceiver, type DeadLetterList } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { type D1Database, D1Store } from '../../src/index.js';

/**
 * A webhook-only Receiver on the same D1 as the `/cost/` scenario's (same secret, so the same
 * token keys): it delivers a result no session vouches for to a handler that fails, once, so
 * the result becomes a dead letter. `POST /untracked/deliver` with `{ secret, payload }`
 * (fields over the fixture payload); `POST /untracked/dead-letters` with `{ secret }` lists them.
 */
export async function untrackedResults(
  request: Request,
  db: D1Database,
): Promise<DeadLetterList | { status: number } | undefined> {
  const url = new URL(request.url);
  const { secret, payload } = (await request.json()) as {
    secret: string;
    payload?: Record<string, unknown>;
  };
  const receiver = createReceiver({
    secret,
    client: false,
    store: new D1Store({ db }),
    logger: false,
    maxDeliveryAttempts: 1,
  });
  receiver.on('verification.completed', () => {
    throw new Error('the archive is down');
  });
  receiver.on('verification.undeliverable', () => undefined);
  receiver.on('error', () => undefined);
  switch (url.pathname) {
    case '/untracked/deliver': {
      const delivery = await signedDelivery(fixturePayload(payload), { secret });
      return { status: (await receiver.receive(delivery)).status };
    }
    case '/untracked/dead-letters':
      return receiver.deadLetters.list();
    default:
      return undefined;
  }
}
