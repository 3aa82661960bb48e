import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createReceiver } from '@faceverify/core';
import { startEmulator } from '@faceverify/emulator';
import { PostgresStore } from '@faceverify/postgres';
import { atDepth, freePort, startPostgresServer, waitFor } from '@faceverify/test-support';
import pg from 'pg';
import { expect, it } from 'vitest';
import {
  crashesOf,
  POSTGRES_SCRIPT,
  type ReceiverProcess,
  startReceiverProcess,
} from './support/receiver-processes.js';
import { inBatches } from './support/redis-instances.js';
import { createResultsTable, startSessions } from './support/results-table.js';
import { between, seededRandom } from './support/seeded-random.js';

const BUILT = fileURLToPath(new URL('../../postgres/dist/index.js', import.meta.url));
// `pnpm test:deep` (run before a release) drives 1,000 sessions through at least 20 kills;
// `pnpm test` and CI a smaller run of the same test, killing as often (the deterministic
// simulation searches the kill points more widely, in milliseconds).
const SESSIONS = atDepth({ standard: 120, deep: 1_000 });
const MIN_KILLS = atDepth({ standard: 6, deep: 20 });
// The most rows a process writes before it is killed: about 10 kills over the 100 sessions CI
// completes while processes are killed.
const MOST_ROWS_PER_PROCESS = atDepth({ standard: 18, deep: 40 });
const SEED = 0x5eed_0012;
// The sessions that complete after the kills, each by its webhook (see below).
const LAST_SESSIONS = 20;
const KILLED_SESSIONS = SESSIONS - LAST_SESSIONS;
// The receiver processes' poll schedule (postgres-receiver-process.mjs).
const POLL_SCHEDULE_MS = [150, 150, 300];

/**
 * The guarantee of transactional handlers on PostgresStore: a handler's writes commit with
 * the record of the delivery, so each result's writes happen exactly once, even when the
 * process running it is killed at any point, and none is missing once work resumes.
 */
it(`a transactional handler writes each result exactly once across ${SESSIONS} deliveries with SIGKILLs at seeded points`, {
  timeout: 600_000,
}, async () => {
  // The process runs the built packages; `pnpm test` builds them first.
  expect(existsSync(BUILT), 'run `pnpm build` first: the receiver process uses dist/').toBe(true);
  const random = seededRandom(SEED);
  const server = await startPostgresServer();
  const database = await server.createDatabase('crash');
  const pool = new pg.Pool({ connectionString: server.url(database), max: 4 });
  pool.on('error', () => undefined);
  const prefix = 'crash_';
  const users = 'crash_users';
  const store = new PostgresStore({ pool, prefix });
  await store.migrate();
  await createResultsTable(pool, users);
  const emulator = await startEmulator({
    seed: SEED,
    rateLimits: {
      verify: { limit: 100_000, windowMs: 60_000 },
      complete: { limit: 100_000, windowMs: 60_000 },
    },
    // Some results come by webhook, the dropped ones only by polling.
    faults: { dropWebhooks: 0.4 },
  });
  const port = await freePort();
  const env = {
    DATABASE_URL: server.url(database),
    STORE_PREFIX: prefix,
    USERS_TABLE: users,
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_BASE_URL: emulator.url,
    PORT: String(port),
  };
  // Sessions are started by another instance (an API server) sharing the store. The instance
  // that starts a session sets its first poll: on the receiver processes' schedule here, so
  // that a result whose webhook was dropped is polled within the run instead of a minute after
  // its session began (the default schedule's first step).
  const client = {
    apiKey: emulator.apiKey,
    baseUrl: emulator.url,
    createSessionsPerMinute: 100_000,
  };
  const secret = emulator.signingSecret;
  const starter = createReceiver({ secret, client, store, pollScheduleMs: POLL_SCHEDULE_MS });
  const lastStarter = createReceiver({ secret, client, store });
  emulator.setCallbackUrl(`http://127.0.0.1:${port}/webhooks/verification`);
  let receiver: ReceiverProcess | undefined;
  // Every process started: one that ended before its kill (a crash) fails the run at the next
  // count of the rows written, instead of leaving the run waiting for rows, and again at the end.
  const started: ReceiverProcess[] = [];
  const startReceiver = async () => {
    const child = await startReceiverProcess(env, POSTGRES_SCRIPT);
    started.push(child);
    return child;
  };
  const written = async () => {
    const crashes = crashesOf(started);
    if (crashes.length > 0) throw new Error(`a receiver process died: ${crashes.join(', ')}`);
    return Number((await pool.query(`SELECT count(*) AS n FROM ${users}`)).rows[0].n);
  };
  let kills = 0;
  try {
    const tokens = await startSessions(starter, 'crash_user_', KILLED_SESSIONS);
    receiver = await startReceiver();
    // Results arrive all along while receivers are killed and restarted: a batch at a
    // time, each once most of the earlier ones are written, so webhooks meet live
    // processes as well as dead ones.
    const completing = (async () => {
      for (let start = 0; start < tokens.length; start += 25) {
        await waitFor(async () => (await written()) >= start - 50, 'earlier results');
        await inBatches(tokens.slice(start, start + 25), 25, (token) =>
          emulator.completeSession(token, 'verified'),
        );
      }
    })();
    let completed = false;
    // Its failure (a receiver that died) is thrown where it is awaited, below.
    void completing.then(
      () => {
        completed = true;
      },
      () => undefined,
    );
    // Each process is killed once a seeded number of further rows has been written: at
    // points spread over its work (mid-handler, mid-commit, mid-poll, between requests).
    while ((await written()) < KILLED_SESSIONS) {
      const target = Math.min(
        KILLED_SESSIONS,
        (await written()) + between(random, 1, MOST_ROWS_PER_PROCESS),
      );
      await waitFor(async () => (await written()) >= target, 'progress after a restart');
      if (target >= KILLED_SESSIONS && completed) break;
      await receiver.kill('SIGKILL');
      kills += 1;
      receiver = await startReceiver();
    }
    await completing;
    // With polls this fast, most webhooks above meet a process being restarted, or lose the
    // race to a poll. So that results come by webhook too however the kills fell, the last
    // sessions start now, on the default schedule (first poll a minute after the start), and
    // complete with no webhook dropped while the last process runs, never to be killed.
    emulator.setFaults({});
    const lastTokens = await startSessions(lastStarter, 'crash_last_user_', LAST_SESSIONS);
    await inBatches(lastTokens, LAST_SESSIONS, (token) =>
      emulator.completeSession(token, 'verified'),
    );
    tokens.push(...lastTokens);
    await emulator.webhooksSettled();
    // The last process, never killed, finishes what is left; then one more sweep of its own.
    await waitFor(async () => {
      const counts = await store.counts({ now: Date.now() });
      return counts.pending === 0 && counts.delivering === 0;
    }, 'every session closed');
    await starter.sweep();

    const { rows } = await pool.query<{ session_token: string; n: string; sources: string[] }>(
      `SELECT session_token, count(*) AS n, array_agg(source) AS sources
         FROM ${users} GROUP BY session_token`,
    );
    const writes = new Map(rows.map((row) => [row.session_token, Number(row.n)]));
    // Exactly once: every session's row written, none twice, nothing else written.
    expect(tokens.filter((token) => writes.get(token) !== 1)).toEqual([]);
    expect(writes.size).toBe(SESSIONS);
    expect(await written()).toBe(SESSIONS);
    const counts = await store.counts({ now: Date.now() });
    expect(counts.completed).toBe(SESSIONS);
    // The run exercised what it claims: many kills, results by webhook and by polling.
    const sources = rows.flatMap((row) => row.sources);
    const byWebhook = sources.filter((source) => source === 'webhook').length;
    const byPoll = sources.filter((source) => source === 'poll').length;
    expect(crashesOf(started)).toEqual([]);
    expect(kills).toBeGreaterThanOrEqual(MIN_KILLS);
    // At least the last sessions' results came by webhook: none was due for a poll yet.
    expect(byWebhook).toBeGreaterThanOrEqual(LAST_SESSIONS);
    expect(byPoll).toBeGreaterThan(0);
    const pids = new Set((await pool.query(`SELECT DISTINCT pid FROM ${users}`)).rows);
    console.log(
      `crash test: ${SESSIONS} sessions, ${kills} SIGKILLs, ${pids.size} processes wrote rows, ` +
        `${byWebhook} by webhook, ${byPoll} by poll, webhooks failed at the connection: ${emulator.stats().webhooks.failed}`,
    );
  } finally {
    await receiver?.kill('SIGTERM');
    await emulator.close();
    await pool.end();
    await server.stop();
  }
});
