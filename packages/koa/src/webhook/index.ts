import {
  type VerificationWebhookFactory,
  type WebhookPlatform,
  webhookMiddleware,
} from '@faceverify/core/adapter';
import type { Context, Next } from 'koa';
import { readWebhookBody } from '../raw-body/read-webhook-body.js';
import { writeAnswer } from '../response/write-answer.js';
import { isRouteHandler } from './mounting.js';
import type { VerificationWebhookOptions } from './options.js';
import type { VerificationWebhookMiddleware } from './types.js';

/** Koa to the webhook pipeline: its context (request and response both) and `next`. */
const koaPlatform: WebhookPlatform<Context, Context, Next, void> = {
  method: (ctx) => ctx.method,
  headers: (ctx) => ctx.req.headers,
  // @koa/router's parameters of the route it matched.
  account: (ctx) => (ctx as { params?: Record<string, string> }).params?.account,
  isRouted: isRouteHandler,
  // Koa throws on a request line it cannot parse as a URL; the pipeline passes it on.
  path: (ctx) => ctx.path,
  readBody: readWebhookBody,
  // The stream is spent. @koa/bodyparser and koa-bodyparser skip a request with this flag
  // instead of failing on it, so `passThrough` can hand over to middleware behind them.
  spent(ctx) {
    Object.assign(ctx, { disableBodyParser: true });
  },
  keep(ctx, event) {
    Object.assign(ctx.state, { verification: event });
  },
  // Passing on resolves nothing, whatever the middleware behind resolved to.
  async next(_ctx, _same, next) {
    await next();
  },
  respond: writeAnswer,
};

/**
 * Koa 2 and 3 middleware that receives the signed `verification.completed` webhook: it
 * reads the exact raw body (size-limited and time-limited, before any JSON parsing), lets the Receiver
 * verify and deliver it, and writes back the Receiver's answer. Mount it before
 * `bodyParser()`.
 *
 * The first argument is a Receiver, or options to create one; without it the Receiver is
 * configured from the environment (`FACEVERIFY_WEBHOOK_SECRET`, ...). A Receiver built
 * from options or the environment is built when the first webhook arrives, so a module
 * that creates the middleware can be imported before the configuration exists (a build,
 * a test); a webhook arriving while the secret is missing is answered
 * `500 receiver_not_configured` and the `ConfigurationError` naming the variable is logged.
 *
 * @example
 * const router = new Router();
 * router.post(
 *   '/webhooks/verification',
 *   verificationWebhook().on('verification.completed', async ({ data }) => {
 *     await users.markVerified(data.external_user_id, data.status === 'verified');
 *   }),
 * );
 * app.use(router.routes());
 * app.use(bodyParser()); // after the webhook
 *
 * @example
 * // Without a router: listens on `path` (default /webhooks/verification).
 * app.use(verificationWebhook(receiver));
 */
export const verificationWebhook: VerificationWebhookFactory<
  VerificationWebhookMiddleware,
  VerificationWebhookOptions
> = webhookMiddleware(
  koaPlatform,
  (webhook) => (ctx: Context, next: Next) => webhook.handle(ctx, ctx, next),
);
