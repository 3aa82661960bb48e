import { type WebhookPlatform, writeNodeAnswer } from '@faceverify/core/adapter';
import type { NextFunction, Request, Response } from 'express';
import { readWebhookBody } from '../raw-body/read-webhook-body.js';
import { fullPath, isRouteHandler } from './mounting.js';

/** Express to the webhook pipeline: its request, its response and `next`. */
export const expressPlatform: WebhookPlatform<Request, Response, NextFunction, void> = {
  method: (req) => req.method,
  headers: (req) => req.headers,
  // Express 5 gives a wildcard's segments as a list: an account is one segment.
  account(req) {
    const value: unknown = req.params?.account;
    return typeof value === 'string' ? value : undefined;
  },
  isRouted: isRouteHandler,
  path: fullPath,
  readBody: readWebhookBody,
  // The stream is spent. Body parsers of Express 4 skip a request marked this way instead of
  // failing on it, so `passThrough` can hand over to routes behind them.
  spent(req) {
    Object.assign(req, { _body: true });
  },
  keep(req, event) {
    Object.assign(req, { verification: event });
  },
  next: (_req, _res, next) => next(),
  respond(res, answer, close) {
    // The rest of a body left unread is not read on: the connection closes after the answer.
    if (close) res.req.pause();
    writeNodeAnswer(res, answer, close);
  },
  // Express 4 ignores returned promises: failures (such as a response already sent by
  // someone else) go to the app's error handler explicitly.
  fail: (error, next) => next(error),
};
