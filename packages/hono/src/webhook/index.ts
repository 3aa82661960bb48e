import {
  lazyWaitUntil,
  nodeIncomingOf,
  toFetchResponse,
  type VerificationWebhookFactory,
  webhookMiddleware,
} from '@faceverify/core/adapter';
import { readWebhookBody } from '../body/read-webhook-body.js';
import { isRouteHandler } from './mounting.js';
import type { VerificationWebhookOptions } from './options.js';
import type { VerificationWebhookMiddleware } from './types.js';

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
> = webhookMiddleware<VerificationWebhookMiddleware, VerificationWebhookOptions>(
  (_self, c, next) => ({
    method: c.req.method,
    // On @hono/node-server, Node's headers as parsed: `c.req.raw.headers` would build Fetch
    // Headers for every webhook.
    headers: nodeIncomingOf(c.env)?.headers ?? c.req.raw.headers,
    request: c,
    routeParam: (name) => c.req.param(name),
    isRouted: () => isRouteHandler(c),
    path: () => c.req.path,
    readBody: (limit, signal) => readWebhookBody(c, limit, signal),
    // Read only when work outlives the response: Hono throws (building an Error) on every
    // read where the runtime has no execution context (Node, Bun, Deno).
    waitUntil: lazyWaitUntil(() => c.executionCtx),
    keep: (event) => c.set('verification', event),
    next,
    respond: (answer, close) => toFetchResponse(answer, close),
  }),
);
