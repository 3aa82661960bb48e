import { createReceiver } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/fastify';
import Fastify from 'fastify';

// FACEVERIFY_WEBHOOK_SECRET, FACEVERIFY_API_KEY and FACEVERIFY_BASE_URL from the environment.
const receiver = createReceiver();
const app = Fastify();

// Its own route, whose body Fastify leaves unparsed: the signature covers the exact bytes.
await app.register(verificationWebhook, { receiver }); // POST /webhooks/verification
app.verificationWebhook.on('verification.completed', async ({ data }) => {
  console.log(`verification of ${data.external_user_id}: ${data.status}`); // your database here
});

// Starts a verification; the browser goes to verifyUrl, the result comes by webhook.
app.post<{ Body: { userId: string } }>('/verifications', async (request, reply) => {
  const { verifyUrl } = await receiver.startVerification({ externalUserId: request.body.userId });
  return reply.status(201).send({ verifyUrl });
});

receiver.start(); // polls for results whose webhook never arrives
const port = Number(process.env.PORT ?? 3000);
await app.listen({ port, host: '127.0.0.1' });
console.log(`listening on http://127.0.0.1:${port}`);
