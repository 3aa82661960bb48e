import {
  type Receiver,
  type ReceiverOptions,
  setUpWebhookMiddleware,
  withReceiver,
} from '@faceverify/core';
import type { Next, ParameterizedContext } from 'koa';
import { readWebhookBody } from '../raw-body/read-webhook-body.js';

import { closeAfterAnswer, writeAnswer } from '../response/write-answer.js';
import { isRouteHandler } from './mounting.js';
import type { VerificationWebhookOptions } from './options.js';
import type { VerificationState, VerificationWebhookMiddleware } from './types.js';

const NO_BODY = new Uint8Array(0);

/** `ctx.path`, or `undefined` for a request line Koa cannot parse as a URL (it throws). */
function requestPath(ctx: ParameterizedContext<VerificationState>): string | undefined {
  try {
    return ctx.path;
  } catch {
    return undefined;
  }
}

/**
 * Koa 2 and 3 middleware that receives the signed `verification.completed` webhook: it
 * reads the exact raw body (size-limited, before any JSON parsing), lets the Receiver
 * verify and deliver it, and writes back the Receiver's answer. Mount it before
 * `bodyParser()`.
 *
 * The first argument is a Receiver, or options to create one; without it the Receiver is
 * configured from the environment (`FACEVERIFY_WEBHOOK_SECRET`, ...) and a missing secret
 * throws a `ConfigurationError` right here.
 *
 * @example
 * const router = new Router();
 * router.post(
 *   '/webhooks/verification',
 *   verificationWebhook().on('verification.completed', async ({ data }) => {
 *     await users.markVerified(data.external_user_id, data.status === 'verified');
 *   }),
 * );
 * app.use(router.routes());
 * app.use(bodyParser()); // after the webhook
 *
 * @example
 * // Without a router: listens on `path` (default /webhooks/verification).
 * app.use(verificationWebhook(receiver));
 */
export function verificationWebhook(
  receiverOrOptions?: Receiver | ReceiverOptions,
  options: VerificationWebhookOptions = {},
): VerificationWebhookMiddleware {
  const { receiver, path, passThrough } = setUpWebhookMiddleware(receiverOrOptions, options);

  async function handle(ctx: ParameterizedContext<VerificationState>, next: Next): Promise<void> {
    if (!isRouteHandler(ctx, middleware) && requestPath(ctx) !== path) {
      await next();
      return;
    }
    let body: Uint8Array = NO_BODY;
    // Other methods get the Receiver's 405 without their body being read.
    if (ctx.method === 'POST') {
      const read = await readWebhookBody(ctx, receiver);
      if (read.kind === 'refused') {
        if (read.leftUnread) closeAfterAnswer(ctx);
        writeAnswer(ctx, read.answer);
        return;
      }
      body = read.bytes;
    }
    const answer = await receiver.receive({ method: ctx.method, headers: ctx.req.headers, body });
    if (answer.event) {
      ctx.state.verification = answer.event;
      if (passThrough) {
        await next();
        return;
      }
    }
    writeAnswer(ctx, answer);
  }

  const middleware: VerificationWebhookMiddleware = withReceiver(handle, receiver);
  return middleware;
}
