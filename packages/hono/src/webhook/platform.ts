import {
  lazyWaitUntil,
  nodeIncomingOf,
  toFetchResponse,
  type WebhookPlatform,
} from '@faceverify/core/adapter';
import type { Context, Next } from 'hono';
import { readWebhookBody, spent } from '../body/read-webhook-body.js';
import { isRouteHandler } from './mounting.js';
import type { VerificationEnv } from './types.js';

type WebhookContext = Context<VerificationEnv>;

/** Hono to the webhook pipeline: its context (request and response both) and `next`. */
export const honoPlatform: WebhookPlatform<WebhookContext, WebhookContext, Next, Response> = {
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
