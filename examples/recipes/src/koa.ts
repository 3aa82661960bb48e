import { createReceiver } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/koa';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';

// FACEVERIFY_WEBHOOK_SECRET, FACEVERIFY_API_KEY and FACEVERIFY_BASE_URL from the environment.
const receiver = createReceiver();
const router = new Router();

// No body parser on this route: the signature covers the exact bytes that were sent.
router.post(
  '/webhooks/verification',
  verificationWebhook(receiver).on('verification.completed', async ({ data }) => {
    console.log(`verification of ${data.external_user_id}: ${data.status}`); // your database here
  }),
);

// Starts a verification; the browser goes to verifyUrl, the result comes by webhook.
router.post('/verifications', bodyParser(), async (ctx) => {
  const { userId } = ctx.request.body as { userId: string };
  const { verifyUrl } = await receiver.startVerification({ externalUserId: userId });
  ctx.status = 201;
  ctx.body = { verifyUrl };
});

receiver.start(); // polls for results whose webhook never arrives
const port = Number(process.env.PORT ?? 3000);
new Koa()
  .use(router.routes())
  .listen(port, () => console.log(`listening on http://127.0.0.1:${port}`));
