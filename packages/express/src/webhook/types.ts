import type { VerificationCompletedEvent } from '@faceverify/core';
import type { WithReceiver } from '@faceverify/core/adapter';
import type { NextFunction, Request, Response } from 'express';

declare global {
  namespace Express {
    interface Request {
      /**
       * The verified `verification.completed` event, set by `verificationWebhook()` when
       * it accepted the webhook. Later middleware sees it with `passThrough: true`.
       */
      verification?: VerificationCompletedEvent;
    }
  }
}

/**
 * The Express middleware `verificationWebhook()` returns, with its Receiver and a
 * chainable `.on()` that registers handlers on it.
 *
 * @example
 * app.use(
 *   verificationWebhook().on('verification.completed', async ({ data }) => {
 *     await users.markVerified(data.external_user_id, data.status === 'verified');
 *   }),
 * );
 */
export type VerificationWebhookMiddleware = WithReceiver<
  (req: Request, res: Response, next: NextFunction) => void
>;
