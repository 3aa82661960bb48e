import {
  type AppSpec,
  type ConformanceTarget,
  type LaterMiddlewareAnswer,
  listen,
  OWN_ROUTE_PATH,
  OWN_ROUTE_TEXT,
} from '@faceverify/conformance';
import type express from 'express';
import type { Request, Response } from 'express';
import { captureRawBody, verificationWebhook } from '../src/index.js';

function answerLater(req: Request, res: Response): void {
  const answer: LaterMiddlewareAnswer = {
    later: true,
    externalUserId: req.verification?.data.external_user_id ?? 'missing',
    source: req.verification?.source ?? 'missing',
  };
  res.json(answer);
}

function buildApp(createApp: typeof express, spec: AppSpec) {
  const app = createApp();
  if (spec.bodyParser === 'parser-first') app.use(createApp.json());
  if (spec.bodyParser === 'parser-keeping-bytes') {
    app.use(createApp.json({ verify: captureRawBody }));
  }
  const { accountHeader } = spec;
  const webhook = verificationWebhook(spec.receiver, {
    ...spec.options,
    ...(accountHeader === undefined ? {} : { account: (req: Request) => req.get(accountHeader) }),
  });
  const laterHandlers = spec.options.passThrough ? [answerLater] : [];
  if (spec.mount === 'use') {
    app.use(webhook);
    if (laterHandlers.length > 0) app.post(spec.webhookPath, ...laterHandlers);
  } else {
    app.post(spec.webhookPath, webhook, ...laterHandlers);
  }
  const ownRoute = (_req: Request, res: Response) => {
    res.type('text/plain').send(OWN_ROUTE_TEXT);
  };
  app.get(OWN_ROUTE_PATH, ownRoute);
  app.post(OWN_ROUTE_PATH, ownRoute);
  return { app, webhook };
}

/** Express (4 or 5, whichever `createApp` is) as a conformance target. */
export function expressTarget(name: string, createApp: typeof express): ConformanceTarget {
  return {
    name,
    bodyParserFix: 'express.json({ verify: captureRawBody })',
    async start(spec) {
      const { app, webhook } = buildApp(createApp, spec);
      const listening = await listen(app);
      return { url: listening.url, webhook, close: listening.close };
    },
  };
}
