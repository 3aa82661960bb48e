import { type VerificationWebhookFactory, webhookMiddleware } from '@faceverify/core/adapter';
import type { Context, Next } from 'hono';
import type { VerificationWebhookOptions } from './options.js';
import { honoPlatform } from './platform.js';
import type { VerificationEnv, VerificationWebhookMiddleware } from './types.js';

/**
 * Hono middleware that receives the signed `verification.completed` webhook on Node, Bun,
 * Deno and Cloudflare Workers: it reads the exact raw body through the Fetch API
 * (size-limited and time-limited, before any JSON parsing), lets the Receiver verify and deliver it, and
 * returns the Receiver's answer. Handlers still running at the acknowledgement deadline
 * are kept alive with the platform's `waitUntil` where there is one.
 *
 * The first argument is a Receiver, or options to create one; without it the Receiver is
 * configured from the environment (`FACEVERIFY_WEBHOOK_SECRET`, ...). A Receiver built
 * from options or the environment is built when the first webhook arrives, so a module
 * that creates the middleware can be imported before the configuration exists (a build,
 * a test); a webhook arriving while the secret is missing is answered
 * `500 receiver_not_configured` and the `ConfigurationError` naming the variable is logged. Workers have no process environment: pass
 * options there.
 *
 * @example
 * const app = new Hono();
 * app.post(
 *   '/webhooks/verification',
 *   verificationWebhook(receiver).on('verification.completed', async ({ data }) => {
 *     await users.markVerified(data.external_user_id, data.status === 'verified');
 *   }),
 * );
 *
 * @example
 * // As app-level middleware: listens on `path` (default /webhooks/verification).
 * app.use(verificationWebhook(receiver));
 */
export const verificationWebhook: VerificationWebhookFactory<
  VerificationWebhookMiddleware,
  VerificationWebhookOptions
> = webhookMiddleware(
  honoPlatform,
  (webhook) => (c: Context<VerificationEnv>, next: Next) => webhook.handle(c, c, next),
);
