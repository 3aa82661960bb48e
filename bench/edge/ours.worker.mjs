// A Worker as the docs write one: Hono, the webhook middleware, D1Store, and a cron sweep.

import { D1Store } from '@faceverify/cloudflare';
import { createReceiver } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/hono';
import { Hono } from 'hono';

let receiver;
const receiverFor = (env) =>
  (receiver ??= createReceiver({
    secret: env.FACEVERIFY_WEBHOOK_SECRET,
    client: { apiKey: env.FACEVERIFY_API_KEY, baseUrl: env.FACEVERIFY_BASE_URL },
    store: new D1Store({ db: env.DB }),
  }));

const app = new Hono();
app.post('/webhooks/verification', (c, next) =>
  verificationWebhook(receiverFor(c.env)).on('verification.completed', async ({ data }) => {
    await c.env.DB.prepare('UPDATE users SET verified = ?1 WHERE id = ?2')
      .bind(data.status === 'verified' ? 1 : 0, data.external_user_id)
      .run();
  })(c, next),
);

export default {
  fetch: app.fetch,
  async scheduled(_controller, env) {
    await receiverFor(env).sweep();
  },
};
