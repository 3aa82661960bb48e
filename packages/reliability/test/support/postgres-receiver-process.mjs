// A receiver deployed as its own process on PostgresStore, for the crash test: Express with
// the webhook middleware and a sweep timer. Its one handler is transactional: it writes a
// row to `users_table` in the store's transaction, with the source of the result and this
// process's pid, so the test can count what each session's result wrote. HANDLER_WAIT_MS
// keeps each transaction open (idle) that long, so connection drops land inside them.
// Runs the built packages, as a deployment would.
import { createReceiver } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/express';
import { PostgresStore } from '@faceverify/postgres';
import express from 'express';
import pg from 'pg';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`postgres-receiver-process: ${name} is not set`);
  return value;
};

// No 'error' listener on the pool here: the store's own must keep a dropped connection from
// ending the process.
const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 12 });
const users = env('USERS_TABLE');
const handlerWaitMs = Number(process.env.HANDLER_WAIT_MS ?? 0);
const receiver = createReceiver({
  secret: env('FACEVERIFY_WEBHOOK_SECRET'),
  client: { apiKey: env('FACEVERIFY_API_KEY'), baseUrl: env('FACEVERIFY_BASE_URL') },
  store: new PostgresStore({ pool, prefix: env('STORE_PREFIX') }),
  pollScheduleMs: [150, 150, 300],
  retryScheduleMs: [100, 200],
  sweepIntervalMs: 50,
  sweepBatchSize: 100,
  leaseMs: 1_500,
});
receiver.on(
  'verification.completed',
  async (event, { transaction }) => {
    await transaction.query(
      `INSERT INTO ${users} (session_token, external_user_id, status, source, pid)
       VALUES ($1, $2, $3, $4, $5)`,
      [
        event.sessionToken,
        event.data.external_user_id,
        event.data.status,
        event.source,
        process.pid,
      ],
    );
    // Keeps the transaction open a little, so kills land inside transactions too.
    await transaction.query('SELECT pg_sleep(0.002)');
    if (handlerWaitMs > 0) await new Promise((resolve) => setTimeout(resolve, handlerWaitMs));
  },
  { transactional: true },
);

const app = express();
app.use(verificationWebhook(receiver));
app.listen(Number(env('PORT')), '127.0.0.1', () => {
  receiver.start();
  process.stdout.write('ready\n');
});
