import {
  lazyWaitUntil,
  nodeIncomingOf,
  toFetchResponse,
  type VerificationWebhookFactory,
  type WebhookPlatform,
  webhookMiddleware,
} from '@faceverify/core/adapter';
import type { Context, Next } from 'hono';
import { readWebhookBody, spent } from '../body/read-webhook-body.js';
import { isRouteHandler } from './mounting.js';
import type { VerificationWebhookOptions } from './options.js';
import type { VerificationEnv, VerificationWebhookMiddleware } from './types.js';

type WebhookContext = Context<VerificationEnv>;

/** Hono to the webhook pipeline: its context (request and response both) and `next`. */
const honoPlatform: WebhookPlatform<WebhookContext, WebhookContext, Next, Response> = {
  method: (c) => c.req.method,
  // On @hono/node-server, Node's headers as parsed: `c.req.raw.headers` would build Fetch
  // Headers for every webhook.
  headers: (c) => nodeIncomingOf(c.env)?.headers ?? c.req.raw.headers,
  account: (c) => c.req.param('account'),
  isRouted: isRouteHandler,
  path: (c) => c.req.path,
  readBody: readWebhookBody,
  spent,
  // Read only when work outlives the response: Hono throws (building an Error) on every
  // read where the runtime has no execution context (Node, Bun, Deno).
  waitUntil(c, _same, promise) {
    lazyWaitUntil(() => c.executionCtx)(promise);
  },
  keep(c, event) {
    c.set('verification', event);
  },
  // Hono's `next` resolves to the context, which a middleware must not return.
  async next(_c, _same, next) {
    await next();
  },
  respond: (_c, answer, close) => toFetchResponse(answer, close),
};

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
  (webhook) => (c: WebhookContext, next: Next) => webhook.handle(c, c, next),
);
