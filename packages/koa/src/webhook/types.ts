import type {
  Receiver,
  ReceiverEventMap,
  ReceiverEventName,
  VerificationCompletedEvent,
} from '@faceverify/core';
import type { Middleware } from 'koa';

/** What `verificationWebhook()` puts on `ctx.state` for later middleware. */
export interface VerificationState {
  /** The verified `verification.completed` event of an accepted webhook. */
  verification: VerificationCompletedEvent;
}

/** The Koa middleware `verificationWebhook()` returns. */
export interface VerificationWebhookMiddleware extends Middleware<VerificationState> {
  /** The Receiver that checks and delivers the webhooks. */
  readonly receiver: Receiver;
  /**
   * Registers a handler on the Receiver; returns the middleware, so it chains.
   *
   * @example
   * router.post(
   *   '/webhooks/verification',
   *   verificationWebhook().on('verification.completed', async ({ data }) => {
   *     await users.markVerified(data.external_user_id, data.status === 'verified');
   *   }),
   * );
   */
  on<Name extends ReceiverEventName>(
    name: Name,
    handler: ReceiverEventMap[Name],
  ): VerificationWebhookMiddleware;
}
