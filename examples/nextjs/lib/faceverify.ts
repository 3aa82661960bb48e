import {
  ApiError,
  type ConfirmedSession,
  createReceiver,
  MemoryStore,
  type Receiver,
} from '@faceverify/core';
import { type VerificationWebhookHandler, verificationWebhook } from '@faceverify/fetch';
import { UserVerifications } from './user-verifications'; // your table of results

/** What the app shares between its routes and pages: one Receiver, its webhook, the results. */
export interface Faceverify {
  receiver: Receiver;
  webhook: VerificationWebhookHandler;
  verifications: UserVerifications;
  /** `receiver.confirm(token)`, or `undefined` when the service knows no such session. */
  confirm(token: string): Promise<ConfirmedSession | undefined>;
}

const KEY = Symbol.for('faceverify.example-nextjs');

function build(): Faceverify {
  // MemoryStore tracks sessions in this process only, and forgets them on a restart. With
  // several instances or on serverless, use RedisStore or PostgresStore.
  const receiver = createReceiver({ store: new MemoryStore() });
  const verifications = new UserVerifications();
  const webhook = verificationWebhook(receiver).on('verification.completed', (event) => {
    verifications.record(event);
  });
  async function confirm(token: string): Promise<ConfirmedSession | undefined> {
    try {
      const confirmed = await receiver.confirm(token);
      // A token this app never started: answered without asking the service.
      return confirmed.status === 'unknown' ? undefined : confirmed;
    } catch (error) {
      // Checked here, next to the Receiver: pages get their own copy of @faceverify/core,
      // whose ApiError is another class than the one this Receiver throws.
      if (error instanceof ApiError && error.serviceStatus === 404) return undefined;
      throw error;
    }
  }
  return { receiver, webhook, verifications, confirm };
}

/**
 * The app's one Receiver, built from `FACEVERIFY_*` on first use (at request time: `next
 * build` runs without the variables). It lives on `globalThis` because Next.js bundles this
 * module separately for route handlers, pages and instrumentation, and the session a start
 * route tracks must be the one the webhook route and the return page find.
 */
export function faceverify(): Faceverify {
  const holder = globalThis as { [KEY]?: Faceverify };
  holder[KEY] ??= build();
  return holder[KEY];
}
