import { ApiError, type Receiver, resultEvents, returnPage } from '@faceverify/core';
import { type VerificationEnv, verificationWebhook } from '@faceverify/hono';
import { Hono } from 'hono';
import { readUserId } from './read-user-id.js';
import type { UserVerifications } from './user-verifications.js';

export interface AppOptions {
  /** One Receiver for the webhook, for the cron sweep and for starting sessions. */
  receiver: Receiver;
  verifications: UserVerifications;
}

/** The integrator's Worker: start a verification, take its webhook, confirm the redirect. */
export function createApp({ receiver, verifications }: AppOptions): Hono<VerificationEnv> {
  const app = new Hono<VerificationEnv>();

  // Nothing reads this route's body before the middleware: the signature covers the exact
  // bytes. Handlers still running when the webhook is acknowledged are kept alive with
  // the Worker's waitUntil.
  app.post(
    '/webhooks/verification',
    verificationWebhook(receiver).on('verification.completed', (event) =>
      verifications.record(event),
    ),
  );

  // Starts a session and gives the browser the hosted page's address, and nothing else.
  app.post('/verifications', async (c) => {
    const userId = readUserId(await c.req.json<unknown>().catch(() => undefined));
    if (userId === undefined) {
      return c.json({ error: 'A JSON body with a "userId" string is required.' }, 400);
    }
    try {
      const { verifyUrl } = await receiver.startVerification({
        externalUserId: userId,
        // The Worker's own origin, as the browser reached it.
        redirectUrl: new URL('/verification/return', c.req.url).toString(),
      });
      return c.json({ verifyUrl }, 201);
    } catch (error) {
      console.error('Could not start a verification:', error);
      return c.json({ error: 'The verification service is unavailable.' }, 502);
    }
  });

  // The hosted page sends the browser back here. Its address is not the result: ask the service.
  app.get('/verification/return', async (c) => {
    const token = c.req.query('token');
    if (token === undefined || token === '') {
      return c.text('The address has no verification token.', 400);
    }
    try {
      const confirmed = await receiver.confirm(token);
      // A token this app never started: answered without asking the service.
      if (confirmed.status === 'unknown') return c.text('This verification is not known.', 404);
      return c.html(returnPage(confirmed, token));
    } catch (error) {
      return error instanceof ApiError && error.serviceStatus === 404
        ? c.text('This verification is not known.', 404)
        : c.text('Try again in a moment.', 502);
    }
  });

  // The return page's live state: Server-Sent Events that end with the result. resultEvents
  // cancels the wait when the browser goes away.
  app.get('/verification/events/:token', (c) => resultEvents(receiver, c.req.param('token')));

  // What the handler recorded, from the webhook or from the cron sweep.
  app.get('/verifications/:userId', async (c) => {
    const verification = await verifications.get(c.req.param('userId'));
    return verification
      ? c.json(verification)
      : c.json({ error: 'No result for this user yet.' }, 404);
  });

  // For a load balancer or an uptime check: 503 only when this instance cannot serve (its store).
  app.get('/health', async (c) => {
    const health = await receiver.health();
    return c.json(health, health.ready ? 200 : 503);
  });

  return app;
}
