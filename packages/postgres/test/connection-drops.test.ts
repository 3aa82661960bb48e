import { createReceiver, type VerificationUndeliverableEvent } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { waitFor } from '@faceverify/test-support';
import type pg from 'pg';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostgresStore, PostgresStoreError } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';
import { trackedSession } from './support/records.js';
import { shiftedClock } from './support/shifted-clock.js';

// Issue 19, item 1: a PostgreSQL connection that drops never escapes as an unhandled 'error'
// event (which would end the process), and a delivery whose transaction dropped counts.

const SECRET = 'whsec_postgres_connection_drops_51c9';

let observer: pg.Pool;
let users: string;
const escaped: unknown[] = [];
const record = (error: unknown) => escaped.push(error);

beforeAll(async () => {
  observer = connect();
  users = `${uniquePrefix('drops')}users`;
  await observer.query(`CREATE TABLE ${users} (id text NOT NULL)`);
});

// Vitest would report an escaped error after the fact; these listeners make each test see it.
beforeEach(() => {
  escaped.length = 0;
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
});
afterEach(() => {
  process.off('uncaughtException', record);
  process.off('unhandledRejection', record);
});

/** Resolves once the server has ended the backend `pid` (terminated or timed out). */
async function backendGone(pid: number): Promise<void> {
  await waitFor(
    async () =>
      (await observer.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0,
    `backend ${pid} gone`,
  );
}

async function terminateBackendsOf(applicationName: string): Promise<number> {
  const { rowCount } = await observer.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE application_name = $1 AND pid <> pg_backend_pid()`,
    [applicationName],
  );
  return rowCount ?? 0;
}

describe('a dropped PostgreSQL connection', () => {
  it('ends a transaction in a PostgresStoreError, never in an unhandled error event', async () => {
    const pool = connect(undefined, { application_name: 'drops_settle_with' });
    const store = new PostgresStore({ pool, prefix: uniquePrefix('drop_tx') });
    await store.migrate();
    const session = trackedSession();
    await store.insert({ record: session, now: 1_000 });
    await store.lease({ key: session.key, owner: 'a', now: 1_000, leaseMs: 60_000 });
    const outcome = store.settleWith(
      { key: session.key, owner: 'a', now: 1_001, update: { state: 'completed', retainMs: 0 } },
      async (client) => {
        const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
        expect(await terminateBackendsOf('drops_settle_with')).toBeGreaterThan(0);
        await backendGone(rows[0].pid);
        // The work writes nothing after the loss: COMMIT is where the loss shows.
      },
    );
    const error = await outcome.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect((error as PostgresStoreError).failure).toBe('unreachable');
    expect((error as PostgresStoreError).operation).toBe('settleWith');
    // Nothing was committed, the lease is still 'a''s, and the pool serves the next call.
    const read = await store.get({ key: session.key, now: 1_002 });
    expect(read?.state).toBe('pending');
    expect(read?.lease?.owner).toBe('a');
    expect(escaped).toEqual([]);
  });

  it('of an idle pooled connection is no unhandled error either', async () => {
    const pool = connect(undefined, { application_name: 'drops_idle' });
    pool.removeAllListeners('error');
    const store = new PostgresStore({ pool, prefix: uniquePrefix('drop_idle') });
    await store.migrate();
    expect(pool.idleCount).toBeGreaterThan(0);
    const ended = new Promise((resolve) => pool.once('remove', resolve));
    expect(await terminateBackendsOf('drops_idle')).toBeGreaterThan(0);
    await ended;
    expect(await store.counts({ now: 1_000 })).toMatchObject({ pending: 0 });
    expect(escaped).toEqual([]);
  });

  it('of a connection checked out and between statements, with no listener of its own, is no unhandled error', async () => {
    // pg-pool stops listening on a client it hands out, and listens once per query: a client
    // between two of pg-pool's own steps (a checkout resolved, not yet listened on; a second
    // error after the first) has nobody. Under PgBouncer restarts a receiver died of it.
    const pool = connect(undefined, { application_name: 'drops_checked_out' });
    pool.removeAllListeners('error');
    const store = new PostgresStore({ pool, prefix: uniquePrefix('drop_out') });
    await store.migrate();
    const client = await pool.connect();
    let ended = false;
    client.once('end', () => {
      ended = true;
    });
    expect(await terminateBackendsOf('drops_checked_out')).toBeGreaterThan(0);
    // An error escaping stops pg before it ends the client: either is the positive signal.
    await waitFor(() => ended || escaped.length > 0, 'the client ended, or an error escaped');
    client.release(true);
    expect(await store.counts({ now: 1_000 })).toMatchObject({ pending: 0 });
    expect(escaped).toEqual([]);
  });
});

describe('idle_in_transaction_session_timeout shorter than a transactional handler', () => {
  it('counts every attempt: the result ends failed and undeliverable at maxDeliveryAttempts', async () => {
    const prefix = uniquePrefix('idle_tx');
    // Migrated on a pool without the timeout: under load, a gap of 150 ms between two of the
    // migrations' statements would end that transaction, which is not what this test is about.
    await new PostgresStore({ pool: connect(), prefix }).migrate();
    const pool = connect(undefined, { options: '-c idle_in_transaction_session_timeout=150' });
    const store = new PostgresStore({ pool, prefix });
    const clock = shiftedClock();
    const receiver = createReceiver({
      secret: SECRET,
      client: false,
      store,
      clock,
      maxDeliveryAttempts: 3,
      retryScheduleMs: [1_000],
    });
    let runs = 0;
    receiver.on(
      'verification.completed',
      async (event, { transaction }) => {
        runs += 1;
        const { rows } = await transaction.query('SELECT pg_backend_pid() AS pid');
        // The handler outlives the server's patience: it waits until its backend is gone.
        await backendGone(rows[0].pid);
        // Odd runs write after the loss (the statement fails), even runs leave it to COMMIT.
        if (runs % 2 === 1) {
          await transaction.query(`INSERT INTO ${users} (id) VALUES ($1)`, [
            event.data.external_user_id,
          ]);
        }
      },
      { transactional: true },
    );
    const undeliverable: VerificationUndeliverableEvent[] = [];
    receiver.on('verification.undeliverable', (event) => {
      undeliverable.push(event);
    });
    const userId = `u_idle_tx_${process.pid}`;
    const response = await receiver.receive(
      await signedDelivery(fixturePayload({ external_user_id: userId }), { secret: SECRET }),
    );
    expect(response.status).toBe(500);
    expect(runs).toBe(1);
    expect(await store.counts({ now: clock.now() })).toMatchObject({ delivering: 1 });
    for (let attempt = 2; attempt <= 3; attempt++) {
      clock.advance(60_000);
      await receiver.sweep();
      expect(runs).toBe(attempt);
    }
    // The loop ends: failed, announced once, and never delivered again.
    expect(await store.counts({ now: clock.now() })).toMatchObject({
      failed: 1,
      delivering: 0,
      pending: 0,
    });
    expect(undeliverable).toHaveLength(1);
    expect(undeliverable[0]?.reason).toBe('attempts_exhausted');
    expect(undeliverable[0]?.event.attempt).toBe(3);
    clock.advance(3_600_000);
    await receiver.sweep();
    expect(runs).toBe(3);
    const written = await observer.query(`SELECT 1 FROM ${users} WHERE id = $1`, [userId]);
    expect(written.rowCount).toBe(0);
    expect(escaped).toEqual([]);
  });
});
