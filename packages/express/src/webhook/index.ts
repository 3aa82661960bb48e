import {
  type Receiver,
  type ReceiverOptions,
  setUpWebhookMiddleware,
  withReceiver,
} from '@faceverify/core';
import type { NextFunction, Request, Response } from 'express';
import { readWebhookBody } from '../raw-body/read-webhook-body.js';

import { closeAfterAnswer, writeAnswer } from '../response/write-answer.js';
import { fullPath, isRouteHandler } from './mounting.js';
import type { VerificationWebhookOptions } from './options.js';
import type { VerificationWebhookMiddleware } from './types.js';

const NO_BODY = new Uint8Array(0);

/**
 * Express 4 and 5 middleware that receives the signed `verification.completed` webhook:
 * it reads the exact raw body (size-limited, before any JSON parsing), lets the Receiver
 * verify and deliver it, and writes back the Receiver's answer. Mount it before body
 * parsers, or use `express.json({ verify: captureRawBody })`.
 *
 * The first argument is a Receiver, or options to create one; without it the Receiver is
 * configured from the environment (`FACEVERIFY_WEBHOOK_SECRET`, ...) and a missing secret
 * throws a `ConfigurationError` right here.
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
export function verificationWebhook(
  receiverOrOptions?: Receiver | ReceiverOptions,
  options: VerificationWebhookOptions = {},
): VerificationWebhookMiddleware {
  const { receiver, path, passThrough } = setUpWebhookMiddleware(receiverOrOptions, options);

  async function handle(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (!isRouteHandler(req, middleware) && fullPath(req) !== path) {
      next();
      return;
    }
    let body: Uint8Array = NO_BODY;
    // Other methods get the Receiver's 405 without their body being read.
    if (req.method === 'POST') {
      const read = await readWebhookBody(req, receiver);
      if (read.kind === 'refused') {
        if (read.leftUnread) closeAfterAnswer(req, res);
        writeAnswer(res, read.answer);
        return;
      }
      body = read.bytes;
    }
    const answer = await receiver.receive({ method: req.method, headers: req.headers, body });
    if (answer.event) {
      req.verification = answer.event;
      if (passThrough) {
        next();
        return;
      }
    }
    writeAnswer(res, answer);
  }

  // Express 4 ignores returned promises: failures (such as a response already sent by
  // someone else) go to the app's error handler explicitly.
  const middleware: VerificationWebhookMiddleware = withReceiver(
    (req: Request, res: Response, next: NextFunction): void => {
      handle(req, res, next).catch(next);
    },
    receiver,
  );
  return middleware;
}
