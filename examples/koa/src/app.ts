import { ApiError, type Receiver, returnPage, sendResultEvents } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/koa';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import { readUserId } from './read-user-id.js';
import type { UserVerifications } from './user-verifications.js';

export interface AppOptions {
  /** One Receiver for the webhook, for polling and for starting sessions. */
  receiver: Receiver;
  verifications: UserVerifications;
  /** Where browsers reach this app; the hosted page sends them back to `/verification/return`. */
  publicUrl: string;
}

/** The integrator's app: start a verification, take its webhook, confirm the redirect. */
export function createApp({ receiver, verifications, publicUrl }: AppOptions): Koa {
  const router = new Router();

  // No body parser on this route: the signature covers the exact bytes that were sent.
  router.post(
    '/webhooks/verification',
    verificationWebhook(receiver).on('verification.completed', (event) => {
      verifications.record(event);
    }),
  );

  // Starts a session and gives the browser the hosted page's address, and nothing else.
  router.post('/verifications', bodyParser(), async (ctx) => {
    const userId = readUserId(ctx.request.body);
    if (userId === undefined) {
      ctx.status = 400;
      ctx.body = { error: 'A JSON body with a "userId" string is required.' };
      return;
    }
    try {
      const { verifyUrl } = await receiver.startVerification({
        externalUserId: userId,
        redirectUrl: `${publicUrl}/verification/return`,
      });
      ctx.status = 201;
      ctx.body = { verifyUrl };
    } catch (error) {
      console.error('Could not start a verification:', error);
      ctx.status = 502;
      ctx.body = { error: 'The verification service is unavailable.' };
    }
  });

  // The hosted page sends the browser back here. Its address is not the result: ask the service.
  router.get('/verification/return', async (ctx) => {
    const { token } = ctx.query;
    if (typeof token !== 'string' || token === '') {
      ctx.status = 400;
      ctx.body = 'The address has no verification token.';
      return;
    }
    try {
      const confirmed = await receiver.confirm(token);
      // A token this app never started: answered without asking the service.
      if (confirmed.status === 'unknown') {
        ctx.status = 404;
        ctx.type = 'text';
        ctx.body = 'This verification is not known.';
        return;
      }
      ctx.type = 'html';
      ctx.body = returnPage(confirmed, token);
    } catch (error) {
      const unknown = error instanceof ApiError && error.serviceStatus === 404;
      ctx.status = unknown ? 404 : 502;
      ctx.type = 'text';
      ctx.body = unknown ? 'This verification is not known.' : 'Try again in a moment.';
    }
  });

  // The return page's live state: Server-Sent Events that end with the result. Koa steps
  // aside (respond = false): the stream is written to the Node response as it happens.
  router.get('/verification/events/:token', (ctx) => {
    ctx.respond = false;
    void sendResultEvents(receiver, ctx.params.token ?? '', ctx.res);
  });

  // What the handler recorded, from the webhook or from polling.
  router.get('/verifications/:userId', (ctx) => {
    const verification = verifications.get(ctx.params.userId ?? '');
    if (verification) {
      ctx.body = verification;
    } else {
      ctx.status = 404;
      ctx.body = { error: 'No result for this user yet.' };
    }
  });

  // For a load balancer or an uptime check: 503 only when this instance cannot serve (its store).
  router.get('/health', async (ctx) => {
    const health = await receiver.health();
    ctx.status = health.ready ? 200 : 503;
    ctx.body = health;
  });

  const app = new Koa();
  app.use(router.routes()).use(router.allowedMethods());
  return app;
}
