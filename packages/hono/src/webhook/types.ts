import type { VerificationCompletedEvent } from '@faceverify/core';
import type { WithReceiver } from '@faceverify/core/adapter';
import type { MiddlewareHandler } from 'hono';

/** What `verificationWebhook()` sets for later handlers: `c.get('verification')`. */
export type VerificationVariables = {
  /** The verified `verification.completed` event of an accepted webhook. */
  verification: VerificationCompletedEvent;
};

/**
 * The Hono env of the middleware; declare your app with it to type `c.get('verification')`.
 *
 * @example
 * const app = new Hono<VerificationEnv>();
 */
export type VerificationEnv = { Variables: VerificationVariables };

/**
 * The Hono middleware `verificationWebhook()` returns, with its Receiver and a chainable
 * `.on()` that registers handlers on it.
 *
 * @example
 * app.use(
 *   verificationWebhook(receiver).on('verification.completed', async ({ data }) => {
 *     await users.markVerified(data.external_user_id, data.status === 'verified');
 *   }),
 * );
 */
export type VerificationWebhookMiddleware = WithReceiver<MiddlewareHandler<VerificationEnv>>;
