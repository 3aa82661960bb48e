import {
  type VerificationWebhookFactory,
  type WebhookPlatform,
  webhookMiddleware,
  writeNodeAnswer,
} from '@faceverify/core/adapter';
import type { NextFunction, Request, Response } from 'express';
import { readWebhookBody } from '../raw-body/read-webhook-body.js';
import { isRouteHandler } from './mounting.js';
import type { VerificationWebhookOptions } from './options.js';
import type { VerificationWebhookMiddleware } from './types.js';

/** Express to the webhook pipeline: its request, its response and `next`. */
const expressPlatform: WebhookPlatform<Request, Response, NextFunction, void> = {
  method: (req) => req.method,
  headers: (req) => req.headers,
  // Express 5 gives a wildcard's segments as a list: an account is one segment.
  account(req) {
    const value: unknown = req.params?.account;
    return typeof value === 'string' ? value : undefined;
  },
  isRouted: isRouteHandler,
  // The request path as sent, also when the middleware is mounted below a prefix.
  path: (req) => (req.baseUrl !== '' && req.path === '/' ? req.baseUrl : req.baseUrl + req.path),
  readBody: readWebhookBody,
  keep(req, event) {
    // The stream is spent too. Body parsers of Express 4 skip a request marked this way
    // instead of failing on it, so `passThrough`, which hands on only an accepted webhook,
    // can hand over to routes behind them.
    Object.assign(req, { verification: event, _body: true });
  },
  next: (_req, _res, next) => next(),
  // The rest of a body left unread is not read on: the connection closes after the answer.
  respond: writeNodeAnswer,
  // Express 4 ignores returned promises: failures (such as a response already sent by
  // someone else) go to the app's error handler explicitly.
  fail: (error, next) => next(error),
};

/**
 * Express 4 and 5 middleware that receives the signed `verification.completed` webhook:
 * it reads the exact raw body (size-limited and time-limited, before any JSON parsing),
 * lets the Receiver verify and deliver it, and writes back the Receiver's answer. Mount it before body
 * parsers, or use `express.json({ verify: captureRawBody })`.
 *
 * The first argument is a Receiver, or options to create one; without it the Receiver is
 * configured from the environment (`FACEVERIFY_WEBHOOK_SECRET`, ...). A Receiver built
 * from options or the environment is built when the first webhook arrives, so a module
 * that creates the middleware can be imported before the configuration exists (a build,
 * a test); a webhook arriving while the secret is missing is answered
 * `500 receiver_not_configured` and the `ConfigurationError` naming the variable is logged.
 *
 * @example
 * const app = express();
 * app.use(
 *   verificationWebhook().on('verification.completed', async ({ data }) => {
 *     await users.markVerified(data.external_user_id, data.status === 'verified');
 *   }),
 * );
 * app.use(express.json()); // after the webhook
 *
 * @example
 * // On a route of your own: any path, no `path` option needed.
 * app.post('/hooks/faceverify', verificationWebhook(receiver));
 */
export const verificationWebhook: VerificationWebhookFactory<
  VerificationWebhookMiddleware,
  VerificationWebhookOptions
> = webhookMiddleware(
  expressPlatform,
  // The pipeline's own `handle`, bound: Express calls it with its request, response and `next`.
  (webhook) => webhook.handle.bind(webhook),
);
