import type { WebhookPlatform } from '@faceverify/core/adapter';
import type { Context, Next } from 'koa';
import { readWebhookBody } from '../raw-body/read-webhook-body.js';
import { writeAnswer } from '../response/write-answer.js';
import { isRouteHandler } from './mounting.js';

/** Koa to the webhook pipeline: its context (request and response both) and `next`. */
export const koaPlatform: WebhookPlatform<Context, Context, Next, void> = {
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
  // What the middleware behind resolves to is not Koa's to return: the middleware resolves nothing.
  async next(_ctx, _same, next) {
    await next();
  },
  respond: writeAnswer,
};
