import { ApiError, type Receiver, returnPage, sendResultEvents } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/express';
import express, { type Express } from 'express';
import type { PrometheusMetrics } from './metrics.js';
import { readUserId } from './read-user-id.js';
import type { UserVerifications } from './user-verifications.js';

export interface AppOptions {
  /** One Receiver for the webhook, for polling and for starting sessions. */
  receiver: Receiver;
  verifications: UserVerifications;
  /** Where browsers reach this app; the hosted page sends them back to `/verification/return`. */
  publicUrl: string;
  /** Serves `GET /metrics` when given: the Receiver's metrics for Prometheus. */
  metrics?: PrometheusMetrics;
}

/** The integrator's app: start a verification, take its webhook, confirm the redirect. */
export function createApp({ receiver, verifications, publicUrl, metrics }: AppOptions): Express {
  const app = express();

  // First, before any body parser: the signature covers the exact bytes that were sent.
  app.use(
    verificationWebhook(receiver).on('verification.completed', (event) => {
      verifications.record(event);
    }),
  );
  app.use(express.json());

  // Starts a session and gives the browser the hosted page's address, and nothing else.
  app.post('/verifications', async (req, res) => {
    const userId = readUserId(req.body);
    if (userId === undefined) {
      res.status(400).json({ error: 'A JSON body with a "userId" string is required.' });
      return;
    }
    try {
      const { verifyUrl } = await receiver.startVerification({
        externalUserId: userId,
        redirectUrl: `${publicUrl}/verification/return`,
      });
      res.status(201).json({ verifyUrl });
    } catch (error) {
      console.error('Could not start a verification:', error);
      res.status(502).json({ error: 'The verification service is unavailable.' });
    }
  });

  // The hosted page sends the browser back here. Its address is not the result: ask the service.
  app.get('/verification/return', async (req, res) => {
    const { token } = req.query;
    if (typeof token !== 'string' || token === '') {
      res.status(400).type('text').send('The address has no verification token.');
      return;
    }
    try {
      const confirmed = await receiver.confirm(token);
      // A token this app never started: answered without asking the service.
      if (confirmed.status === 'unknown') {
        res.status(404).type('text').send('This verification is not known.');
        return;
      }
      res.type('html').send(returnPage(confirmed, token));
    } catch (error) {
      const unknown = error instanceof ApiError && error.serviceStatus === 404;
      res
        .status(unknown ? 404 : 502)
        .type('text')
        .send(unknown ? 'This verification is not known.' : 'Try again in a moment.');
    }
  });

  // The return page's live state: Server-Sent Events that end with the result, whichever
  // instance of this app records it (the store tells the others).
  app.get('/verification/events/:token', (req, res) => {
    void sendResultEvents(receiver, req.params.token, res);
  });

  // What the handler recorded, from the webhook or from polling.
  app.get('/verifications/:userId', (req, res) => {
    const verification = verifications.get(req.params.userId);
    if (verification) res.json(verification);
    else res.status(404).json({ error: 'No result for this user yet.' });
  });

  // For a load balancer or an uptime check: 503 only when this instance cannot serve (its store).
  app.get('/health', async (_req, res) => {
    const health = await receiver.health();
    res.status(health.ready ? 200 : 503).json(health);
  });

  if (metrics) app.get('/metrics', metrics.serve);

  return app;
}
