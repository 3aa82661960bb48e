import {
  bunServedOf,
  lazyWaitUntil,
  nodeIncomingOf,
  readFetchBody,
  toFetchResponse,
  type VerificationWebhookFactory,
  type WebhookPlatform,
  webhookMiddleware,
} from '@faceverify/core/adapter';
import { BODY_CONSUMED_HINT } from './hints.js';
import type { VerificationWebhookOptions } from './options.js';
import type { PlatformContext, VerificationWebhookHandler } from './types.js';

/**
 * The Fetch API to the webhook pipeline: the `Request`, and the platform's context (the
 * handler's second argument) in the response's place. No path and no `next`: the handler is
 * mounted on the webhook's route, and nothing runs after it.
 */
const fetchPlatform: WebhookPlatform<Request, PlatformContext | undefined, undefined, Response> = {
  method: (request) => request.method,
  // On @hono/node-server, Node's request under `request`: its headers are read as Node parsed
  // them, where `request.headers` would build Fetch Headers for every webhook.
  headers: (request, context) => nodeIncomingOf(context)?.headers ?? request.headers,
  readBody: (request, limit, signal, context) =>
    readFetchBody(
      request,
      limit,
      signal,
      BODY_CONSUMED_HINT,
      // Node's parser, or Bun.serve's, held the body to its Content-Length: read it whole.
      nodeIncomingOf(context) ?? bunServedOf(context, request),
    ),
  waitUntil(_request, context, promise) {
    lazyWaitUntil(() => context)(promise);
  },
  respond: (_context, answer, close) => toFetchResponse(answer, close),
};

/**
 * A Fetch-standard handler, `(request, context?) => Promise<Response>`, that receives the
 * signed `verification.completed` webhook on any runtime with `Request` and `Response`:
 * Next.js App Router, Bun.serve, Deno.serve, Cloudflare Workers, Remix, SvelteKit, Astro.
 * It reads the exact body once (size-limited and time-limited), lets the Receiver verify
 * and deliver it, and returns the Receiver's answer. Mount it on the webhook's route: it
 * handles every request it is given. Handlers still running at the acknowledgement
 * deadline are kept alive with `context.waitUntil` when the platform passes one.
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
 * // app/api/webhooks/verification/route.ts (Next.js App Router): safe at module level
 * export const POST = verificationWebhook().on('verification.completed', async ({ data }) => {
 *   await users.markVerified(data.external_user_id, data.status === 'verified');
 * });
 *
 * @example
 * // Bun
 * const webhook = verificationWebhook(receiver);
 * Bun.serve({ routes: { '/webhooks/verification': webhook } });
 */
export const verificationWebhook: VerificationWebhookFactory<
  VerificationWebhookHandler,
  VerificationWebhookOptions
> = webhookMiddleware(
  fetchPlatform,
  (webhook) => (request: Request, context?: PlatformContext) =>
    webhook.handle(request, context, undefined) as Promise<Response>,
);
