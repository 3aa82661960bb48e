import { type VerificationWebhookFactory, webhookMiddleware } from '@faceverify/core/adapter';
import type { NextFunction, Request, Response } from 'express';
import type { VerificationWebhookOptions } from './options.js';
import { expressPlatform } from './platform.js';
import type { VerificationWebhookMiddleware } from './types.js';

/**
 * Express 4 and 5 middleware that receives the signed `verification.completed` webhook:
 * it reads the exact raw body (size-limited and time-limited, before any JSON parsing),
 * lets the Receiver verify and deliver it, and writes back the Receiver's answer. Mount it before body
 * parsers, or use `express.json({ verify: captureRawBody })`.
 *
 * The first argument is a Receiver, or options to create one; without it the Receiver is
 * configured from the environment (`FACEVERIFY_WEBHOOK_SECRET`, ...). A Receiver built
 * from options or the environment is built when the first webhook arrives, so a module
 * that creates the middleware can be imported before the configuration exists (a build,
 * a test); a webhook arriving while the secret is missing is answered
 * `500 receiver_not_configured` and the `ConfigurationError` naming the variable is logged.
 *
 * @example
 * const app = express();
 * app.use(
 *   verificationWebhook().on('verification.completed', async ({ data }) => {
 *     await users.markVerified(data.external_user_id, data.status === 'verified');
 *   }),
 * );
 * app.use(express.json()); // after the webhook
 *
 * @example
 * // On a route of your own: any path, no `path` option needed.
 * app.post('/hooks/faceverify', verificationWebhook(receiver));
 */
export const verificationWebhook: VerificationWebhookFactory<
  VerificationWebhookMiddleware,
  VerificationWebhookOptions
> = webhookMiddleware(
  expressPlatform,
  (webhook) => (req: Request, res: Response, next: NextFunction) => webhook.handle(req, res, next),
);
