import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createReceiver } from '@faceverify/core';
import { startEmulator } from '@faceverify/emulator';
import { PostgresStore } from '@faceverify/postgres';
import {
  freePort,
  type PostgresServer,
  startPgBouncer,
  startPostgresServer,
  waitFor,
} from '@faceverify/test-support';
import pg from 'pg';
import { expect, it } from 'vitest';
import {
  POSTGRES_SCRIPT,
  type ReceiverProcess,
  startReceiverProcess,
} from './support/receiver-processes.js';
import { inBatches } from './support/redis-instances.js';
import { createResultsTable, startSessions } from './support/results-table.js';

const BUILT = fileURLToPath(new URL('../../postgres/dist/index.js', import.meta.url));
const SESSIONS = 200;
const OBSERVER = 'connection_drops_observer';

/**
 * Issue 19, item 1: a receiver on PostgresStore behind PgBouncer (transaction pooling)
 * keeps serving while its connections are dropped under load: backends terminated with
 * pg_terminate_backend, PgBouncer restarted, PostgreSQL restarted. Each transactional handler
 * holds its transaction open a while, so every drop cuts transactions in flight. At the end
 * the process is still the one started, and every result's row is written exactly once.
 */
it('a receiver behind PgBouncer survives terminated backends, a PgBouncer restart and a PostgreSQL restart under load, with every result written once', {
  timeout: 600_000,
}, async () => {
  expect(existsSync(BUILT), 'run `pnpm build` first: the receiver process uses dist/').toBe(true);
  let server: PostgresServer = await startPostgresServer();
  const database = await server.createDatabase('drops');
  const bouncer = await startPgBouncer(server, { poolMode: 'transaction', poolSize: 20 });
  // The test's own connections go straight to PostgreSQL and are never terminated.
  const observer = new pg.Pool({
    connectionString: server.url(database),
    max: 2,
    application_name: OBSERVER,
  });
  observer.on('error', () => undefined);
  const prefix = 'drops_';
  const users = 'drops_users';
  const store = new PostgresStore({ pool: observer, prefix });
  await store.migrate();
  await createResultsTable(observer, users);
  const emulator = await startEmulator({
    seed: 'connection-drops',
    rateLimits: {
      verify: { limit: 100_000, windowMs: 60_000 },
      complete: { limit: 100_000, windowMs: 60_000 },
    },
    // Some results come by webhook, the dropped ones only by polling.
    faults: { dropWebhooks: 0.3 },
  });
  const port = await freePort();
  emulator.setCallbackUrl(`http://127.0.0.1:${port}/webhooks/verification`);
  const starter = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url, createSessionsPerMinute: 100_000 },
    store,
    // The first poll time is set when a session starts: results whose webhook was lost in a
    // drop are fetched within a second, not after the default minute.
    pollScheduleMs: [500, 500, 1_000],
  });
  const written = async () =>
    Number((await observer.query(`SELECT count(*) AS n FROM ${users}`)).rows[0].n);
  let receiver: ReceiverProcess | undefined;
  // While PostgreSQL restarts, the count is unknown: the wait goes on. A receiver that died
  // fails the test at once instead of leaving it waiting.
  const writtenSoFar = () => {
    const crash = receiver?.crashed();
    if (crash) throw new Error(`the receiver process died (${crash})`);
    return written().catch(() => -1);
  };
  /** Every backend of the database but the observer's, ended as an administrator would. */
  const terminateBackends = async () =>
    (
      await observer.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = $1 AND application_name <> $2 AND pid <> pg_backend_pid()`,
        [database, OBSERVER],
      )
    ).rowCount ?? 0;

  try {
    const tokens = await startSessions(starter, 'drops_user_', SESSIONS);
    receiver = await startReceiverProcess(
      {
        DATABASE_URL: bouncer.url(database),
        STORE_PREFIX: prefix,
        USERS_TABLE: users,
        FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
        FACEVERIFY_API_KEY: emulator.apiKey,
        FACEVERIFY_BASE_URL: emulator.url,
        PORT: String(port),
        HANDLER_WAIT_MS: '40',
      },
      POSTGRES_SCRIPT,
    );
    const completing = (async () => {
      for (let start = 0; start < tokens.length; start += 20) {
        await inBatches(tokens.slice(start, start + 20), 20, (token) =>
          emulator.completeSession(token, 'verified'),
        );
        // Lets a batch's transactions start before the next, so drops meet open ones.
        await waitFor(async () => (await writtenSoFar()) >= start - 40, 'earlier results');
      }
    })();
    const faults: string[] = [];
    const atRows = async (rows: number, fault: () => Promise<unknown>, name: string) => {
      await waitFor(async () => (await writtenSoFar()) >= rows, `${rows} rows before: ${name}`);
      await fault();
      faults.push(name);
    };
    await atRows(
      30,
      async () => expect(await terminateBackends()).toBeGreaterThan(0),
      'terminate backends',
    );
    await atRows(70, () => bouncer.restart(), 'restart PgBouncer');
    await atRows(100, terminateBackends, 'terminate backends again');
    await atRows(
      130,
      async () => {
        await server.stop({ remove: false });
        server = await startPostgresServer({
          dir: server.dir,
          port: server.port,
          password: server.password,
        });
      },
      'restart PostgreSQL',
    );
    await completing;
    await waitFor(async () => {
      const counts = await store.counts({ now: Date.now() }).catch(() => undefined);
      return counts !== undefined && counts.pending === 0 && counts.delivering === 0;
    }, 'every session closed');
    await emulator.webhooksSettled();

    expect(faults).toHaveLength(4);
    // The process started at the beginning is still the one serving: nothing ended it.
    expect(receiver.crashed()).toBeUndefined();
    expect(receiver.child.exitCode).toBeNull();
    const { rows } = await observer.query<{ session_token: string; n: string }>(
      `SELECT session_token, count(*) AS n FROM ${users} GROUP BY session_token`,
    );
    const writes = new Map(rows.map((row) => [row.session_token, Number(row.n)]));
    // Nothing lost, nothing written twice, nothing else written.
    expect(tokens.filter((token) => writes.get(token) !== 1)).toEqual([]);
    expect(await written()).toBe(SESSIONS);
    expect((await store.counts({ now: Date.now() })).completed).toBe(SESSIONS);
    const pids = await observer.query(`SELECT DISTINCT pid FROM ${users}`);
    expect(pids.rows.map((row) => row.pid)).toEqual([receiver.child.pid]);
  } finally {
    await receiver?.kill('SIGTERM');
    await emulator.close();
    await observer.end();
    await bouncer.stop();
    await server.stop();
  }
});
