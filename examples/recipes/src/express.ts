import { createReceiver } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/express';
import express from 'express';

// FACEVERIFY_WEBHOOK_SECRET, FACEVERIFY_API_KEY and FACEVERIFY_BASE_URL from the environment.
const receiver = createReceiver();
const app = express();

// First, before any body parser: the signature covers the exact bytes that were sent.
app.use(
  verificationWebhook(receiver).on('verification.completed', async ({ data }) => {
    console.log(`verification of ${data.external_user_id}: ${data.status}`); // your database here
  }),
);
app.use(express.json()); // the rest of the app parses JSON as usual

// Starts a verification; the browser goes to verifyUrl, the result comes by webhook.
app.post('/verifications', async (req, res) => {
  const { verifyUrl } = await receiver.startVerification({ externalUserId: req.body.userId });
  res.status(201).json({ verifyUrl });
});

receiver.start(); // polls for results whose webhook never arrives
const port = Number(process.env.PORT ?? 3000);
app.listen(port, () => console.log(`listening on http://127.0.0.1:${port}`));
