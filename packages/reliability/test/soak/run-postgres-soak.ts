import { createReceiver } from '@faceverify/core';
import { startEmulator } from '@faceverify/emulator';
import { PostgresStore } from '@faceverify/postgres';
import { freePort, type PostgresServer, startPostgresServer } from '@faceverify/test-support';
import pg from 'pg';
import { everyRecordClosed } from '../support/every-record-closed.js';
import {
  crashesOf,
  POSTGRES_SCRIPT,
  type ReceiverProcess,
  startReceiverProcess,
} from '../support/receiver-processes.js';
import { createResultsTable } from '../support/results-table.js';
import { startRoundRobinProxy } from '../support/round-robin-proxy.js';
import { driveSessions } from './drive-sessions.js';
import { SOAK_FAULTS } from './run-soak.js';

export interface PostgresSoakReport {
  sessions: number;
  ratePerSecond: number;
  started: number;
  completed: number;
  /** Sessions whose users row was written once, twice or more, or never. */
  writtenOnce: number;
  writtenTwice: number;
  lost: number;
  bySource: { webhook: number; poll: number };
  emulator: ReturnType<Awaited<ReturnType<typeof startEmulator>>['stats']>;
  /** How each receiver process that the soak did not kill ended before the end, if it did. */
  crashed: string[];
  events: string[];
  durationMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The soak on PostgreSQL: three receiver processes on one real PostgreSQL behind a
 * round-robin proxy, each with a transactional handler writing a users row per result.
 * Sessions are started and completed at a steady rate under the soak's faults; one receiver
 * is killed (SIGKILL) and restarted, and PostgreSQL is stopped and started again (fast
 * shutdown: open transactions are rolled back). Bounded: it stops by itself.
 */
export async function runPostgresSoak(options: {
  sessions: number;
  ratePerSecond: number;
}): Promise<PostgresSoakReport> {
  const began = Date.now();
  const events: string[] = [];
  const note = (text: string) =>
    events.push(`${((Date.now() - began) / 1000).toFixed(1)}s ${text}`);
  let server: PostgresServer = await startPostgresServer();
  const database = await server.createDatabase('soak');
  const url = server.url(database);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  const prefix = 'soak_';
  const users = 'soak_users';
  const store = new PostgresStore({ pool, prefix });
  await store.migrate();
  await createResultsTable(pool, users);
  const emulator = await startEmulator({
    seed: 'postgres-soak',
    rateLimits: {
      verify: { limit: 1_000_000, windowMs: 60_000 },
      complete: { limit: 1_000_000, windowMs: 60_000 },
    },
    faults: SOAK_FAULTS,
  });
  const ports = [await freePort(), await freePort(), await freePort()];
  const envFor = (port: number) => ({
    DATABASE_URL: url,
    STORE_PREFIX: prefix,
    USERS_TABLE: users,
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_BASE_URL: emulator.url,
    PORT: String(port),
  });
  const receivers: ReceiverProcess[] = await Promise.all(
    ports.map((port) => startReceiverProcess(envFor(port), POSTGRES_SCRIPT)),
  );
  // Every process started, so that one which died unseen (not killed) is reported.
  const everyReceiver = [...receivers];
  const proxy = await startRoundRobinProxy(() => ports.map((port) => `http://127.0.0.1:${port}`));
  emulator.setCallbackUrl(`${proxy.url}/webhooks/verification`);
  // The API server that starts verifications: another instance sharing the store.
  const starter = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url, createSessionsPerMinute: 1_000_000 },
    store,
    pollScheduleMs: [1000, 1000, 2000],
  });

  const started: string[] = [];
  const completed = new Set<string>();
  const milestones = new Map<number, () => Promise<void>>([
    [
      Math.floor(options.sessions * 0.3),
      async () => {
        await receivers[1]!.kill('SIGKILL');
        note('receiver 2 killed (SIGKILL)');
      },
    ],
    [
      Math.floor(options.sessions * 0.4),
      async () => {
        receivers[1] = await startReceiverProcess(envFor(ports[1]!), POSTGRES_SCRIPT);
        everyReceiver.push(receivers[1]);
        note('receiver 2 restarted');
      },
    ],
    [
      Math.floor(options.sessions * 0.6),
      async () => {
        await server.stop({ remove: false });
        note('postgres stopped');
        await sleep(1500);
        server = await startPostgresServer({
          dir: server.dir,
          port: server.port,
          password: server.password,
        });
        note('postgres restarted');
      },
    ],
  ]);
  const written = async () =>
    (
      await pool.query<{ session_token: string; n: string; source: string }>(
        `SELECT session_token, count(*) AS n, min(source) AS source FROM ${users} GROUP BY 1`,
      )
    ).rows;

  try {
    started.push(
      ...(await driveSessions({
        sessions: options.sessions,
        ratePerSecond: options.ratePerSecond,
        starter,
        emulator,
        milestones,
        onCompleted: (token) => completed.add(token),
      })),
    );
    note(`all ${started.length} sessions completed at the service`);
    emulator.setFaults({});
    await everyRecordClosed(store, starter);
    await emulator.webhooksSettled();
    note('drained');

    const rows = await written();
    const byToken = new Map(rows.map((row) => [row.session_token, Number(row.n)]));
    return {
      sessions: options.sessions,
      ratePerSecond: options.ratePerSecond,
      started: started.length,
      completed: completed.size,
      writtenOnce: started.filter((token) => byToken.get(token) === 1).length,
      writtenTwice: started.filter((token) => (byToken.get(token) ?? 0) > 1).length,
      lost: started.filter((token) => !byToken.has(token)).length,
      bySource: {
        webhook: rows.filter((row) => row.source === 'webhook').length,
        poll: rows.filter((row) => row.source === 'poll').length,
      },
      emulator: emulator.stats(),
      crashed: crashesOf(everyReceiver),
      events,
      durationMs: Date.now() - began,
    };
  } finally {
    await Promise.all(receivers.map((receiver) => receiver.kill('SIGTERM')));
    await proxy.close();
    await pool.end();
    await emulator.close();
    await server.stop();
  }
}
