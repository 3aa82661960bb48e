// A receiver deployed as its own process, for tests that kill it: Express with the webhook
// middleware, a RedisStore, and a sweep timer. Every handler call is appended to a Redis list
// with this process's pid, so the test can see what each process delivered.
// Runs the built packages, as a deployment would. Timings may be set by POLL_SCHEDULE_MS and
// SWEEP_INTERVAL_MS.
import { createReceiver } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/express';
import { RedisStore } from '@faceverify/redis';
import express from 'express';
import { Redis } from 'ioredis';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`receiver-process: ${name} is not set`);
  return value;
};

const redis = new Redis(env('REDIS_URL'), { maxRetriesPerRequest: 2 });
// Outages are part of the tests; the store reports its own failures.
redis.on('error', () => {});
const prefix = env('STORE_PREFIX');
const receiver = createReceiver({
  secret: env('FACEVERIFY_WEBHOOK_SECRET'),
  client: { apiKey: env('FACEVERIFY_API_KEY'), baseUrl: env('FACEVERIFY_BASE_URL') },
  store: new RedisStore({ redis, prefix }),
  pollScheduleMs: (process.env.POLL_SCHEDULE_MS ?? '150,150,300').split(',').map(Number),
  retryScheduleMs: [100, 200],
  sweepIntervalMs: Number(process.env.SWEEP_INTERVAL_MS ?? 50),
  sweepBatchSize: 200,
  leaseMs: 5_000,
});
receiver.on('verification.completed', async (event) => {
  await redis.rpush(
    `${prefix}ledger`,
    JSON.stringify({
      token: event.sessionToken ?? event.id,
      source: event.source,
      pid: process.pid,
      deliveredAt: Date.now(),
    }),
  );
});

const app = express();
app.use(verificationWebhook(receiver));
app.listen(Number(env('PORT')), '127.0.0.1', () => {
  receiver.start();
  process.stdout.write('ready\n');
});
