import { createReceiver } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { boolean, pgTable, text } from 'drizzle-orm/pg-core';
import { Kysely, PostgresDialect, type PostgresPoolClient } from 'kysely';
import type { PoolClient } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';

const SECRET = 'whsec_postgres_query_builders_3a0c';
const table = `${uniquePrefix('orm')}users`;
const users = pgTable(table, { id: text('id').primaryKey(), verified: boolean('verified') });

interface Database {
  [table]: { id: string; verified: boolean | null };
}

/** Kysely on the transaction's client; `release` is a no-op: the store owns the client. */
function kyselyOn(transaction: PoolClient): Kysely<Database> {
  const client: PostgresPoolClient = {
    query: transaction.query.bind(transaction) as PostgresPoolClient['query'],
    release() {},
  };
  return new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: { options: {}, connect: async () => client, end: async () => {} },
    }),
  });
}

const pool = connect();
beforeAll(async () => {
  await pool.query(`CREATE TABLE ${table} (id text PRIMARY KEY, verified boolean)`);
});

async function receiverWith(
  write: (transaction: PoolClient, userId: string) => Promise<void>,
  failAfterWrite: () => boolean,
) {
  const store = new PostgresStore({ pool, prefix: uniquePrefix('orm') });
  await store.migrate();
  const receiver = createReceiver({ secret: SECRET, client: false, store });
  receiver.on(
    'verification.completed',
    async (event, { transaction }) => {
      await write(transaction, event.data.external_user_id);
      if (failAfterWrite()) throw new Error('failed after writing');
    },
    { transactional: true },
  );
  return receiver;
}

async function verified(id: string): Promise<boolean[]> {
  const { rows } = await pool.query(`SELECT verified FROM ${table} WHERE id = $1`, [id]);
  return rows.map((row) => row.verified);
}

describe.each([
  [
    'Drizzle (drizzle(transaction))',
    async (transaction: PoolClient, id: string) => {
      const db = drizzle(transaction);
      await db.insert(users).values({ id, verified: false });
      await db.update(users).set({ verified: true }).where(eq(users.id, id));
    },
  ],
  [
    'Kysely (a pool of the transaction client)',
    async (transaction: PoolClient, id: string) => {
      const db = kyselyOn(transaction);
      await db.insertInto(table).values({ id, verified: false }).execute();
      await db.updateTable(table).set({ verified: true }).where('id', '=', id).execute();
    },
  ],
])('a transactional handler writing with %s', (name, write) => {
  it(`commits its writes with the delivery, or none of them when it throws [${name}]`, async () => {
    let fail = true;
    const receiver = await receiverWith(write, () => fail);
    const id = `${name.slice(0, 6)}_${Date.now()}`;
    const delivery = await signedDelivery(fixturePayload({ external_user_id: id }), {
      secret: SECRET,
    });
    expect((await receiver.receive(delivery)).status).toBe(500);
    expect(await verified(id)).toEqual([]);
    fail = false;
    const other = `${id}_ok`;
    const ok = await signedDelivery(fixturePayload({ external_user_id: other }), {
      secret: SECRET,
    });
    expect((await receiver.receive(ok)).status).toBe(200);
    expect(await verified(other)).toEqual([true]);
  });
});
