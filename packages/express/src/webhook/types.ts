import type {
  Receiver,
  ReceiverEventMap,
  ReceiverEventName,
  VerificationCompletedEvent,
} from '@faceverify/core';
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

/** The Express middleware `verificationWebhook()` returns. */
export interface VerificationWebhookMiddleware {
  (req: Request, res: Response, next: NextFunction): void;
  /** The Receiver that checks and delivers the webhooks. */
  readonly receiver: Receiver;
  /**
   * Registers a handler on the Receiver; returns the middleware, so it chains.
   *
   * @example
   * app.use(
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
