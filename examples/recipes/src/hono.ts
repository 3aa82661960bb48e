import { createReceiver } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/hono';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

// FACEVERIFY_WEBHOOK_SECRET, FACEVERIFY_API_KEY and FACEVERIFY_BASE_URL from the environment.
const receiver = createReceiver();
const app = new Hono();

// Nothing may read this request's body first: the signature covers the exact bytes sent.
app.post(
  '/webhooks/verification',
  verificationWebhook(receiver).on('verification.completed', async ({ data }) => {
    console.log(`verification of ${data.external_user_id}: ${data.status}`); // your database here
  }),
);

// Starts a verification; the browser goes to verifyUrl, the result comes by webhook.
app.post('/verifications', async (c) => {
  const { userId } = await c.req.json<{ userId: string }>();
  const { verifyUrl } = await receiver.startVerification({ externalUserId: userId });
  return c.json({ verifyUrl }, 201);
});

receiver.start(); // polls for results whose webhook never arrives
const port = Number(process.env.PORT ?? 3000);
serve({ fetch: app.fetch, port }, () => console.log(`listening on http://127.0.0.1:${port}`));
