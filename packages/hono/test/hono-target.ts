import {
  type AppSpec,
  type ConformanceTarget,
  type LaterMiddlewareAnswer,
  listen,
  OWN_ROUTE_PATH,
  OWN_ROUTE_TEXT,
} from '@faceverify/conformance';
import { getRequestListener } from '@hono/node-server';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { type VerificationEnv, verificationWebhook } from '../src/index.js';

function answerLater(c: Context<VerificationEnv>): Response {
  const verification = c.get('verification');
  const answer: LaterMiddlewareAnswer = {
    later: true,
    externalUserId: verification.data.external_user_id,
    source: verification.source,
  };
  return c.json(answer);
}

/**
 * What Hono apps do before a webhook middleware: read the body through Hono (which caches
 * it). `c.req.json()` caches text; `c.req.arrayBuffer()` keeps the bytes.
 */
function earlyBodyRead(setup: AppSpec['bodyParser']): MiddlewareHandler | undefined {
  if (setup === 'none') return undefined;
  return async (c, next) => {
    if (c.req.method === 'POST') {
      if (setup === 'parser-first') await c.req.json().catch(() => undefined);
      else await c.req.arrayBuffer();
    }
    await next();
  };
}

function buildApp(spec: AppSpec) {
  const app = new Hono<VerificationEnv>();
  const bodyRead = earlyBodyRead(spec.bodyParser);
  if (bodyRead) app.use(bodyRead);
  const { accountHeader } = spec;
  const webhook = verificationWebhook(spec.receiver, {
    ...spec.options,
    ...(accountHeader === undefined
      ? {}
      : { account: (c: Context) => c.req.header(accountHeader) }),
  });
  if (spec.mount === 'use') {
    app.use(webhook);
    if (spec.options.passThrough) app.post(spec.webhookPath, answerLater);
  } else if (spec.options.passThrough) {
    app.post(spec.webhookPath, webhook, answerLater);
  } else {
    app.post(spec.webhookPath, webhook);
  }
  app.on(['GET', 'POST'], OWN_ROUTE_PATH, (c) => c.text(OWN_ROUTE_TEXT));
  return { app, webhook };
}

/** Hono on Node through @hono/node-server as a conformance target. */
export const honoNodeTarget: ConformanceTarget = {
  name: 'Hono on @hono/node-server',
  bodyParserFix: 'c.req.arrayBuffer()',
  async start(spec) {
    const { app, webhook } = buildApp(spec);
    const listening = await listen(getRequestListener(app.fetch));
    return { url: listening.url, webhook, close: listening.close };
  },
};
