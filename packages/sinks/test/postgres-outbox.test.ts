import { PostgresStore } from '@faceverify/postgres';
import { type PostgresServer, startPostgresServer } from '@faceverify/test-support';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SinkError, type SinkMessage } from '../src/index.js';
import { outboxTableSql, postgresOutboxSink } from '../src/postgres.js';
import { IMAGE_URL, sinkReceiver, tally } from './support/receiver.js';

let server: PostgresServer;
let pool: pg.Pool;

beforeAll(async () => {
  server = await startPostgresServer();
  pool = new pg.Pool({ connectionString: server.url(await server.createDatabase('sinks')) });
  pool.on('error', () => undefined);
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

/** A receiver on a PostgresStore of its own (tables prefixed by `name`). */
async function outboxReceiver(name: string) {
  const store = new PostgresStore({ pool, prefix: `${name}_` });
  await store.migrate();
  return sinkReceiver<pg.PoolClient>({ store });
}

async function rows(table: string): Promise<{ event_id: string; message: SinkMessage }[]> {
  return (await pool.query(`SELECT event_id, message FROM ${table} ORDER BY position`)).rows;
}

it('writes each result as one outbox row in the delivery transaction, without the session token or the image link', async () => {
  await pool.query(outboxTableSql({ table: 'outbox_each' }));
  const { receiver, deliver, seen } = await outboxReceiver('each');
  receiver.on('verification.completed', postgresOutboxSink({ table: 'outbox_each' }), {
    transactional: true,
  });
  for (const user of ['user_a', 'user_b', 'user_c']) expect(await deliver(user)).toBe(200);

  const written = await rows('outbox_each');
  expect(written.map((row) => row.event_id)).toEqual(seen);
  for (const { event_id, message } of written) {
    expect(message.id).toBe(event_id);
    expect(message).not.toHaveProperty('sessionToken');
    expect(JSON.stringify(message)).not.toContain(IMAGE_URL);
  }
});

it('a delivery that fails after the outbox row was written rolls the row back: after the retry, one row, exactly once', async () => {
  await pool.query(outboxTableSql({ table: 'outbox_retried' }));
  const { receiver, deliver, retryAfter, seen } = await outboxReceiver('retried');
  receiver.on('verification.completed', postgresOutboxSink({ table: 'outbox_retried' }), {
    transactional: true,
  });
  const failed = new Set<string>();
  let rowsBeforeFailing = -1;
  receiver.on(
    'verification.completed',
    async (event, { transaction }) => {
      if (failed.has(event.id)) return;
      failed.add(event.id);
      // The sink wrote its row in this transaction; the failure takes it back.
      rowsBeforeFailing = Number(
        (await transaction.query('SELECT count(*) AS n FROM outbox_retried')).rows[0].n,
      );
      throw new Error('a later transactional handler failed once');
    },
    { transactional: true },
  );
  expect(await deliver('user_a')).toBe(500);
  expect(rowsBeforeFailing).toBe(1);
  expect(await rows('outbox_retried')).toEqual([]);

  expect(await retryAfter(5_000)).toMatchObject({ delivered: 1 });
  expect(seen.length).toBe(2);
  expect(tally((await rows('outbox_retried')).map((row) => row.event_id))).toEqual({
    distinct: 1,
    duplicates: 0,
  });
});

it('results that arrive while the outbox cannot be written wait in the store and are written once it can, none lost, none twice', async () => {
  const { receiver, deliver, retryAfter, seen } = await outboxReceiver('missing');
  const errors: unknown[] = [];
  receiver.on('error', (error) => errors.push(error));
  receiver.on('verification.completed', postgresOutboxSink({ table: 'outbox_missing' }), {
    transactional: true,
  });
  for (const user of ['user_1', 'user_2', 'user_3']) expect(await deliver(user)).toBe(500);
  expect(await retryAfter(5_000)).toMatchObject({ leased: 3, delivered: 0 });
  expect(await retryAfter(30_000)).toMatchObject({ leased: 3, delivered: 0 });
  expect(errors.length).toBe(9);
  expect(errors[0]).toBeInstanceOf(SinkError);

  await pool.query(outboxTableSql({ table: 'outbox_missing' }));
  expect(await retryAfter(120_000)).toMatchObject({ leased: 3, delivered: 3 });
  const written = (await rows('outbox_missing')).map((row) => row.event_id);
  expect(tally(written)).toEqual({ distinct: 3, duplicates: 0 });
  expect(new Set(written)).toEqual(new Set(seen));
});

it('registered without { transactional: true }, every result fails with the fix and is kept', async () => {
  const { receiver, deliver } = await outboxReceiver('plain');
  const errors: unknown[] = [];
  receiver.on('error', (error) => errors.push(error));
  receiver.on('verification.completed', postgresOutboxSink() as never);
  expect(await deliver('user_a')).toBe(500);
  expect((errors[0] as Error).message).toMatch(/\{ transactional: true \}/);
});

it('refuses a table name that is not an identifier', () => {
  expect(() => postgresOutboxSink({ table: 'outbox; DROP TABLE x' })).toThrow(/`table`/);
  expect(() => outboxTableSql({ table: '1outbox' })).toThrow(/`table`/);
});
