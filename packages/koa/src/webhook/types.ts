import type { VerificationCompletedEvent } from '@faceverify/core';
import type { WithReceiver } from '@faceverify/core/adapter';
import type { Middleware } from 'koa';

/** What `verificationWebhook()` puts on `ctx.state` for later middleware. */
export interface VerificationState {
  /** The verified `verification.completed` event of an accepted webhook. */
  verification: VerificationCompletedEvent;
}

/**
 * The Koa middleware `verificationWebhook()` returns, with its Receiver and a chainable
 * `.on()` that registers handlers on it.
 *
 * @example
 * router.post(
 *   '/webhooks/verification',
 *   verificationWebhook().on('verification.completed', async ({ data }) => {
 *     await users.markVerified(data.external_user_id, data.status === 'verified');
 *   }),
 * );
 */
export type VerificationWebhookMiddleware = WithReceiver<Middleware<VerificationState>>;
