import {
  type AppSpec,
  type ConformanceTarget,
  type LaterMiddlewareAnswer,
  listen,
  OWN_ROUTE_PATH,
  OWN_ROUTE_TEXT,
} from '@faceverify/conformance';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type Koa from 'koa';
import type { ParameterizedContext } from 'koa';
import { type VerificationState, verificationWebhook } from '../src/index.js';

function answerLater(ctx: ParameterizedContext<VerificationState>): void {
  const answer: LaterMiddlewareAnswer = {
    later: true,
    externalUserId: ctx.state.verification.data.external_user_id,
    source: ctx.state.verification.source,
  };
  ctx.body = answer;
}

function buildApp(KoaApp: typeof Koa, spec: AppSpec) {
  const app = new KoaApp();
  // @koa/bodyparser always keeps its text as ctx.request.rawBody: whether that counts as
  // the exact bytes is decided per request (see the conformance body-parser cases).
  if (spec.bodyParser !== 'none') app.use(bodyParser());
  const { accountHeader } = spec;
  const webhook = verificationWebhook(spec.receiver, {
    ...spec.options,
    // ctx.get() answers '' for a header not sent: no account.
    ...(accountHeader === undefined
      ? {}
      : { account: (ctx: Koa.Context) => ctx.get(accountHeader) || undefined }),
  });
  const router = new Router();
  if (spec.mount === 'use') {
    app.use(webhook);
    if (spec.options.passThrough) {
      app.use(async (ctx: ParameterizedContext<VerificationState>, next) => {
        if (ctx.method === 'POST' && ctx.path === spec.webhookPath) answerLater(ctx);
        else await next();
      });
    }
  } else if (spec.options.passThrough) {
    router.post(spec.webhookPath, webhook, answerLater);
  } else {
    router.post(spec.webhookPath, webhook);
  }
  const ownRoute = (ctx: Koa.Context) => {
    ctx.type = 'text/plain';
    ctx.body = OWN_ROUTE_TEXT;
  };
  router.get(OWN_ROUTE_PATH, ownRoute);
  router.post(OWN_ROUTE_PATH, ownRoute);
  app.use(router.routes());
  return { app, webhook };
}

/** Koa (2 or 3, whichever `KoaApp` is) with @koa/router as a conformance target. */
export function koaTarget(name: string, KoaApp: typeof Koa): ConformanceTarget {
  return {
    name,
    bodyParserFix: 'Mount verificationWebhook() before bodyParser()',
    async start(spec) {
      const { app, webhook } = buildApp(KoaApp, spec);
      const listening = await listen(app.callback());
      return { url: listening.url, webhook, close: listening.close };
    },
  };
}
