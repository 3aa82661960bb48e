import {
  type Receiver,
  type ReceiverOptions,
  setUpWebhookMiddleware,
  withReceiver,
} from '@faceverify/core';
import type { Context, Next } from 'hono';
import { readWebhookBody } from '../body/read-webhook-body.js';

import { toResponse } from '../response/to-response.js';
import { waitUntilOf } from '../runtime/wait-until.js';
import { isRouteHandler } from './mounting.js';
import type { VerificationWebhookOptions } from './options.js';
import type { VerificationEnv, VerificationWebhookMiddleware } from './types.js';

const NO_BODY = new Uint8Array(0);

/**
 * Hono middleware that receives the signed `verification.completed` webhook on Node, Bun,
 * Deno and Cloudflare Workers: it reads the exact raw body through the Fetch API
 * (size-limited, before any JSON parsing), lets the Receiver verify and deliver it, and
 * returns the Receiver's answer. Handlers still running at the acknowledgement deadline
 * are kept alive with the platform's `waitUntil` where there is one.
 *
 * The first argument is a Receiver, or options to create one; without it the Receiver is
 * configured from the environment (`FACEVERIFY_WEBHOOK_SECRET`, ...) and a missing secret
 * throws a `ConfigurationError` right here. Workers have no process environment: pass
 * options there.
 *
 * @example
 * const app = new Hono();
 * app.post(
 *   '/webhooks/verification',
 *   verificationWebhook(receiver).on('verification.completed', async ({ data }) => {
 *     await users.markVerified(data.external_user_id, data.status === 'verified');
 *   }),
 * );
 *
 * @example
 * // As app-level middleware: listens on `path` (default /webhooks/verification).
 * app.use(verificationWebhook(receiver));
 */
export function verificationWebhook(
  receiverOrOptions?: Receiver | ReceiverOptions,
  options: VerificationWebhookOptions = {},
): VerificationWebhookMiddleware {
  const { receiver, path, passThrough } = setUpWebhookMiddleware(receiverOrOptions, options);

  async function handle(c: Context<VerificationEnv>, next: Next): Promise<Response | undefined> {
    if (!isRouteHandler(c) && c.req.path !== path) {
      await next();
      return undefined;
    }
    const { method } = c.req;
    let body: Uint8Array = NO_BODY;
    // Other methods get the Receiver's 405 without their body being read.
    if (method === 'POST') {
      const read = await readWebhookBody(c.req, receiver);
      if (read.kind === 'refused') return toResponse(read.answer);
      body = read.bytes;
    }

    const answer = await receiver.receive({
      method,
      headers: c.req.raw.headers,
      body,
      waitUntil: waitUntilOf(c),
    });
    if (answer.event) {
      c.set('verification', answer.event);
      if (passThrough) {
        await next();
        return undefined;
      }
    }
    return toResponse(answer);
  }

  const middleware: VerificationWebhookMiddleware = withReceiver(handle, receiver);
  return middleware;
}
