import { createReceiver, type VerificationCompletedEvent } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';
import { storedResult, trackedSession } from './support/records.js';
import { shiftedClock } from './support/shifted-clock.js';

const SECRET = 'whsec_postgres_settle_with_7d1e';
const completed = { state: 'completed' as const, retainMs: 60_000 };

let pool: pg.Pool;
let users: string;

beforeAll(async () => {
  pool = connect();
  users = `${uniquePrefix('users')}users`;
  await pool.query(`CREATE TABLE ${users} (id text PRIMARY KEY, status text NOT NULL)`);
});

async function freshStore(): Promise<PostgresStore> {
  const store = new PostgresStore({ pool, prefix: uniquePrefix('settle') });
  await store.migrate();
  return store;
}

async function userRows(id: string): Promise<string[]> {
  const { rows } = await pool.query(`SELECT status FROM ${users} WHERE id = $1`, [id]);
  return rows.map((row) => row.status);
}

describe('PostgresStore.settleWith', () => {
  it('commits the work and the settle together', async () => {
    const store = await freshStore();
    const record = trackedSession();
    await store.insert({ record, now: 1_000 });
    await store.lease({ key: record.key, owner: 'a', now: 1_000, leaseMs: 5_000 });
    const outcome = await store.settleWith(
      { key: record.key, owner: 'a', update: completed, now: 1_001 },
      async (client) => {
        await client.query(`INSERT INTO ${users} (id, status) VALUES ($1, 'verified')`, [
          record.key,
        ]);
        // Inside the transaction the work's write is visible; outside it is not yet.
        expect(await userRows(record.key)).toEqual([]);
        return 'written';
      },
    );
    expect(outcome).toEqual({ settled: true, value: 'written' });
    expect(await userRows(record.key)).toEqual(['verified']);
    const read = await store.get({ key: record.key, now: 1_002 });
    expect(read?.state).toBe('completed');
    expect(read?.lease).toBeUndefined();
  });

  it('rolls back both when the work throws, keeps the lease, and rethrows the error', async () => {
    const store = await freshStore();
    const record = trackedSession();
    await store.insert({ record, now: 1_000 });
    await store.lease({ key: record.key, owner: 'a', now: 1_000, leaseMs: 5_000 });
    const failure = new Error('handler failed after writing');
    await expect(
      store.settleWith(
        { key: record.key, owner: 'a', update: completed, now: 1_001 },
        async (client) => {
          await client.query(`INSERT INTO ${users} (id, status) VALUES ($1, 'verified')`, [
            record.key,
          ]);
          throw failure;
        },
      ),
    ).rejects.toBe(failure);
    expect(await userRows(record.key)).toEqual([]);
    const read = await store.get({ key: record.key, now: 1_002 });
    expect(read?.state).toBe('pending');
    expect(read?.lease?.owner).toBe('a');
  });

  it('does not run the work without the lease', async () => {
    const store = await freshStore();
    const record = trackedSession();
    await store.insert({ record, now: 1_000 });
    await store.lease({ key: record.key, owner: 'a', now: 1_000, leaseMs: 5_000 });
    let ran = false;
    const outcome = await store.settleWith(
      { key: record.key, owner: 'b', update: completed, now: 1_001 },
      async () => {
        ran = true;
      },
    );
    expect(outcome).toEqual({ settled: false });
    expect(ran).toBe(false);
    expect((await store.get({ key: record.key, now: 1_002 }))?.state).toBe('pending');
  });

  it('runs the work once when two holders of the same lease settle at once', async () => {
    const store = await freshStore();
    const record = trackedSession();
    await store.insert({ record, now: 1_000 });
    await store.lease({ key: record.key, owner: 'a', now: 1_000, leaseMs: 5_000 });
    let runs = 0;
    const outcomes = await Promise.all(
      [0, 1, 2].map(() =>
        store.settleWith(
          { key: record.key, owner: 'a', update: completed, now: 1_001 },
          async () => {
            runs += 1;
          },
        ),
      ),
    );
    expect(runs).toBe(1);
    expect(outcomes.filter((outcome) => outcome.settled)).toHaveLength(1);
  });

  it('keeps a result attached with the closed record', async () => {
    const store = await freshStore();
    const record = trackedSession();
    await store.insert({ record, now: 1_000 });
    await store.lease({ key: record.key, owner: 'a', now: 1_000, leaseMs: 5_000 });
    const result = storedResult(record.externalUserId);
    await store.settleWith(
      { key: record.key, owner: 'a', update: { ...completed, result }, now: 1_001 },
      async () => undefined,
    );
    expect((await store.get({ key: record.key, now: 1_002 }))?.result).toEqual(result);
  });
});

describe('a transactional verification.completed handler on PostgresStore', () => {
  it('writes its row together with the completed record, once per result', async () => {
    const store = await freshStore();
    const receiver = createReceiver({ secret: SECRET, client: false, store });
    const seen: VerificationCompletedEvent[] = [];
    receiver.on(
      'verification.completed',
      async (event, { transaction }) => {
        seen.push(event);
        await transaction.query(`INSERT INTO ${users} (id, status) VALUES ($1, $2)`, [
          event.data.external_user_id,
          event.data.status,
        ]);
      },
      { transactional: true },
    );
    const userId = `u_tx_${Date.now()}`;
    const delivery = await signedDelivery(fixturePayload({ external_user_id: userId }), {
      secret: SECRET,
    });
    const first = await receiver.receive(delivery);
    const replay = await receiver.receive(delivery);
    expect(first.status).toBe(200);
    expect(JSON.parse(replay.body)).toEqual({ received: true, duplicate: true });
    expect(seen).toHaveLength(1);
    expect(await userRows(userId)).toEqual([seen[0]!.data.status]);
  });

  it('leaves no row and no completed record when it throws; the retry writes it once', async () => {
    const store = await freshStore();
    const clock = shiftedClock();
    const receiver = createReceiver({ secret: SECRET, client: false, store, clock });
    let fail = true;
    receiver.on(
      'verification.completed',
      async (event, { transaction }) => {
        await transaction.query(`INSERT INTO ${users} (id, status) VALUES ($1, $2)`, [
          event.data.external_user_id,
          event.data.status,
        ]);
        if (fail) throw new Error('downstream refused');
      },
      { transactional: true },
    );
    const userId = `u_tx_fail_${Date.now()}`;
    const delivery = await signedDelivery(fixturePayload({ external_user_id: userId }), {
      secret: SECRET,
    });
    const response = await receiver.receive(delivery);
    expect(response.status).toBe(500);
    expect(JSON.parse(response.body).error).toBe('handler_failed');
    expect(await userRows(userId)).toEqual([]);
    const counts = await store.counts({ now: clock.now() });
    expect(counts.completed).toBe(0);
    expect(counts.delivering).toBe(1);

    fail = false;
    clock.advance(3_600_000);
    await receiver.sweep();
    expect((await userRows(userId)).length).toBe(1);
    await receiver.sweep();
    expect((await userRows(userId)).length).toBe(1);
  });
});
