import { createReceiver, type Receiver } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { waitFor } from '@faceverify/test-support';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { closedChannel, tableNames } from '../src/names.js';
import { connect, uniquePrefix } from './support/pools.js';

const SECRET = 'whsec_postgres_wait_for_result_8c2d';
// track() needs a client; nothing here asks the service (webhooks are not confirmed).
const CLIENT = { apiKey: 'fv_test_pg_wait', baseUrl: 'http://127.0.0.1:9' };
const observer = connect();

async function instance(prefix: string, poolSize = 10): Promise<Receiver<pg.PoolClient>> {
  const store = new PostgresStore({ pool: connect(undefined, { max: poolSize }), prefix });
  await store.migrate();
  return createReceiver({
    secret: SECRET,
    client: CLIENT,
    confirmWebhooks: false,
    store,
    logger: false,
  }).on('verification.completed', () => undefined);
}

/** Sessions of this database whose last statement was a LISTEN: the held connections. */
async function listening(): Promise<number> {
  const { rows } = await observer.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN faceverify_closed_%'",
  );
  return Number(rows[0]?.n);
}

describe('waitForResult on PostgresStore: a result delivered by another instance', () => {
  it('reaches a waiter on instance A when instance B delivers it, through LISTEN/NOTIFY, and the connection held for it is released', async () => {
    const prefix = uniquePrefix('wait');
    const a = await instance(prefix);
    const b = await instance(prefix);
    await b.track('tok_pg_wait_1', 'petra');
    const before = await listening();

    const waiting = a.waitForResult('tok_pg_wait_1', { timeoutMs: 60_000 });
    await waitFor(async () => (await listening()) === before + 1, 'A listens');
    const sentAt = performance.now();
    const answer = await b.receive(
      await signedDelivery(fixturePayload({ external_user_id: 'petra' }), { secret: SECRET }),
    );
    expect(answer.status).toBe(200);
    await expect(waiting).resolves.toMatchObject({
      state: 'completed',
      result: { external_user_id: 'petra' },
    });
    const latencyMs = performance.now() - sentAt;
    // Through the notice, not the 5 s reread: reported, not bounded (the machine decides).
    console.log(
      `waitForResult on PostgresStore: webhook on B to waiter on A in ${latencyMs.toFixed(1)} ms`,
    );
    await waitFor(async () => (await listening()) === before, 'the LISTEN connection released');
  });

  it('listens again after its LISTEN connection is terminated, gives that client back once, and still reaches the waiter', async () => {
    const prefix = uniquePrefix('waitdrop');
    const a = await instance(prefix);
    const b = await instance(prefix);
    await b.track('tok_pg_wait_drop', 'quinn');
    const before = await listening();
    const waiting = a.waitForResult('tok_pg_wait_drop', { timeoutMs: 60_000 });
    await waitFor(async () => (await listening()) === before + 1, 'A listens');
    // The server ends A's LISTEN session: its client errors, and its pending work fails.
    const channel = closedChannel(tableNames(undefined, prefix));
    await observer.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1::text',
      [`LISTEN ${channel}`],
    );
    await waitFor(async () => (await listening()) === before, 'the dropped session is gone');
    await waitFor(async () => (await listening()) === before + 1, 'A listens again');
    const answer = await b.receive(
      await signedDelivery(fixturePayload({ external_user_id: 'quinn' }), { secret: SECRET }),
    );
    expect(answer.status).toBe(200);
    await expect(waiting).resolves.toMatchObject({
      state: 'completed',
      result: { external_user_id: 'quinn' },
    });
    await waitFor(async () => (await listening()) === before, 'the LISTEN connection released');
  });

  it('listens again for a later waiter on the connection it gave back (a pool of two, which hands the last one given back out first), and gives it back again', async () => {
    const prefix = uniquePrefix('waitagain');
    // Two connections: the second LISTEN gets the client the first one gave back (pg-pool
    // hands out the idle client given back last), while reads take the other.
    const a = await instance(prefix, 2);
    const b = await instance(prefix);
    const before = await listening();
    for (const user of ['rosa', 'sven']) {
      const token = `tok_pg_wait_again_${user}`;
      await b.track(token, user);
      const waiting = a.waitForResult(token, { timeoutMs: 60_000 });
      await waitFor(async () => (await listening()) === before + 1, `A listens for ${user}`);
      await b.receive(
        await signedDelivery(fixturePayload({ external_user_id: user }), { secret: SECRET }),
      );
      await expect(waiting).resolves.toMatchObject({ state: 'completed' });
      await waitFor(async () => (await listening()) === before, `A gave back ${user}'s connection`);
    }
  });
});
