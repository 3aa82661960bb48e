import type { PGlite, Transaction } from '@electric-sql/pglite';
import { type Client, createReceiver, type VerificationPayload } from '@faceverify/core';
import { createTestClock, fixturePayload, signedDelivery } from '@faceverify/core/testing';
import {
  measureReceiverPaths,
  type PgBouncerServer,
  type ReceiverPaths,
  RoundTripMeter,
  startPgBouncer,
  tallyPaths,
} from '@faceverify/test-support';
import { startPGlite } from '@faceverify/test-support/pglite';
import {
  measureStartPaths,
  ONE_ROUND_TRIP_PER_START_CALL,
} from '@faceverify/test-support/start-round-trips';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { PGliteStore } from '../src/pglite.js';
import type { SqlStore } from '../src/sql-store.js';
import { connect, uniquePrefix } from './support/pools.js';

// The store round trips each path of a Receiver waits for, one after another, counted on the
// driver (every statement sent, exact, never timed): BENCHMARKS.md, "Store round trips per
// webhook", tables these counts.

const SECRET = 'whsec_postgres_round_trips_7b30';

/** Names a statement of `store` by what it is called in statements.ts (the longest match). */
function statementNames(store: SqlStore<unknown>): (sql: string) => string {
  const named = Object.entries((store as unknown as { sql: Record<string, unknown> }).sql)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .sort((a, b) => b[1].length - a[1].length);
  return (sql) => {
    const found = named.find(([, text]) => sql.includes(text));
    return found ? found[0] : sql.trim().split(/\s+/)[0]!.toUpperCase();
  };
}

/**
 * Notes each statement a pooled connection sends (node-postgres sends one at a time on a
 * connection, so one queued behind another waits for its answer, except in pipeline mode). A connection opened costs
 * round trips of its own (startup, authentication): it is noted as `connect`, so a path that
 * had to open one would not match its count.
 */
function meterPool(pool: pg.Pool, meter: RoundTripMeter, name: (sql: string) => string): void {
  pool.on('connect', (client) => {
    meter.send('connect')();
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
      // A connection in pipeline mode (the store's shared statements) sends each at once.
      const pipelined = (client as { pipeline?: boolean }).pipeline === true;
      const answered = meter.send(name(text), pipelined ? undefined : client);
      const callback = args.at(-1);
      if (typeof callback === 'function') {
        args[args.length - 1] = (...results: unknown[]) => {
          answered();
          return callback(...results);
        };
        return query(...args);
      }
      const answer = query(...args) as Promise<unknown>;
      answer.then(answered, answered);
      return answer;
    };
  });
}

/** A PGlite whose statements and transactions are noted (it runs one at a time). */
function meteredPGlite(db: PGlite, meter: RoundTripMeter, name: () => (sql: string) => string) {
  const metered = <T>(call: string, run: () => Promise<T>) => {
    const answered = meter.send(call, db);
    const answer = run();
    answer.then(answered, answered);
    return answer;
  };
  const queryOf =
    (target: PGlite | Transaction) =>
    (sql: string, params?: unknown[]): Promise<unknown> =>
      metered(name()(sql), () => target.query(sql, params));
  return {
    query: queryOf(db),
    transaction: <T>(body: (tx: Transaction) => Promise<T>) => {
      let begun: () => void = () => undefined;
      let commit: (() => void) | undefined;
      const done = db.transaction(async (tx) => {
        begun();
        const value = await body({ ...tx, query: queryOf(tx) } as Transaction);
        commit = meter.send('COMMIT', db);
        return value;
      });
      begun = meter.send('BEGIN', db);
      const settle = () => commit?.();
      done.then(settle, settle);
      return done;
    },
  } as unknown as PGlite;
}

async function measure(
  store: SqlStore<unknown>,
  meter: RoundTripMeter,
  label: string,
): Promise<ReceiverPaths> {
  await store.migrate();
  return measureReceiverPaths<VerificationPayload>({
    meter,
    label,
    transactional: true,
    receiver: ({ options, delivered, transactional }) =>
      createReceiver({
        ...options,
        client: options.client as Client,
        secret: SECRET,
        store,
        clock: createTestClock(Date.now()),
      }).on(
        'verification.completed',
        (event) => delivered(event.data.external_user_id),
        transactional ? { transactional: true } : undefined,
      ),
    payload: (user, extra = {}) => fixturePayload({ external_user_id: user, extra }),
    sign: (payload, forged) =>
      signedDelivery(payload, { secret: forged ? 'whsec_someone_else' : SECRET }),
  });
}

/** A PostgresStore on `url` whose statements are counted, with its pool already warm. */
async function postgresPaths(url: string, label: string): Promise<ReceiverPaths> {
  const meter = new RoundTripMeter();
  const pool = connect(url, { max: 10, idleTimeoutMillis: 0 });
  const store = new PostgresStore({ pool, prefix: uniquePrefix(label) });
  meterPool(pool, meter, statementNames(store));
  // Connections for every statement a path has in flight at once, opened before any is counted.
  await Promise.all(Array.from({ length: 6 }, () => pool.query('SELECT 1')));
  return measure(store, meter, label);
}

// Each path: round trips in turn / statements sent. A webhook of a tracked session remembers
// its digest while it looks its user up (one round trip), attaches its result and leases the
// session in one statement, and records the delivery (the closing notice is in that
// statement); with a transactional handler that record is BEGIN, the settle (which takes the
// row lock and checks the lease), the handler, COMMIT. Whether this Receiver tracked the
// session (webhookTracked_plain) or another did (webhookTrackedElsewhere) makes no
// difference here. A sweep prunes, checks the server's timeline (PostgreSQL only), leases
// what is due, settles each session (side by side), and reads the backlog. The user is looked
// up once, under the keyed hash of the id.
const POSTGRES = {
  firstStep: '6/6',
  track: '5/5',
  webhookTracked_plain: '3/4',
  webhookTrackedElsewhere: '3/4',
  webhookTracked_transactional: '5/6',
  duplicate: '1/2',
  rejection: '0/0',
  webhookConfirmed: '3/4',
  pollDelivery: '5/5',
  sweep1: '4/4',
  perDueSession: '+1',
};

// A start's calls (Store contract rule 13), on any instance: each one statement, one round
// trip. The claim is one call of the store's claim function, which locks, reads, checks and
// counts in turn inside the server; the insert that ends it carries the start's row.
const STARTS = ONE_ROUND_TRIP_PER_START_CALL;

/** Two instances of one store (`create`), migrated, their start calls counted on `meter`. */
async function startPaths(
  create: () => SqlStore<unknown>,
  meter: RoundTripMeter,
  label: string,
): Promise<ReceiverPaths> {
  const store = create();
  await store.migrate();
  return measureStartPaths({ meter, store, elsewhere: create(), label, now: Date.now() });
}

// Each measurement walks every path of a Receiver on a real server one after another (tens of
// statements, migrations first): 10 to 20 s on a loaded two-core machine, beyond the 20 s
// default of tests that wait on one thing. What it asserts is a count, never a time.
describe('store round trips of a Receiver on PostgreSQL, counted on the driver', {
  timeout: 90_000,
}, () => {
  const url = new URL(inject('postgresUrl'));
  let pooler: PgBouncerServer;
  beforeAll(async () => {
    pooler = await startPgBouncer({
      host: '127.0.0.1',
      port: Number(url.port),
      user: 'postgres',
      password: decodeURIComponent(url.password),
    });
  });
  afterAll(() => pooler?.stop());

  it('PostgreSQL, connected directly', async () => {
    const paths = await postgresPaths(url.href, 'rt_direct');
    console.log(paths);
    expect(tallyPaths(paths)).toEqual(POSTGRES);
  });

  it('PostgreSQL: the starts, one round trip per call', async () => {
    const meter = new RoundTripMeter();
    const pool = connect(url.href, { max: 4, idleTimeoutMillis: 0 });
    const prefix = uniquePrefix('rt_starts');
    const create = () => new PostgresStore({ pool, prefix });
    meterPool(pool, meter, statementNames(create()));
    await Promise.all(Array.from({ length: 2 }, () => pool.query('SELECT 1')));
    const paths = await startPaths(create, meter, 'rt_starts');
    expect(tallyPaths(paths)).toEqual(STARTS);
  });

  it('PostgreSQL through PgBouncer (transaction pooling): the same counts', async () => {
    const paths = await postgresPaths(pooler.url(url.pathname.slice(1)), 'rt_pooled');
    console.log(paths);
    expect(tallyPaths(paths)).toEqual(POSTGRES);
  });
});

describe('store round trips of a Receiver on PGlite, counted on its calls', () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await startPGlite();
  }, 60_000);
  afterAll(() => db?.close());

  it('PGlite: no clock reading, no timeline check; each call runs alone', async () => {
    const meter = new RoundTripMeter();
    let name: (sql: string) => string = (sql) => sql;
    const store = new PGliteStore({
      db: meteredPGlite(db, meter, () => name),
      prefix: uniquePrefix('rt_pglite'),
    });
    name = statementNames(store);
    const paths = await measure(store, meter, 'rt_pglite');
    console.log(paths);
    // PGlite runs one statement at a time: the lookup and the digest go one after the other.
    expect(tallyPaths(paths)).toEqual({
      ...POSTGRES,
      firstStep: '5/5',
      webhookTracked_plain: '4/4',
      webhookTrackedElsewhere: '4/4',
      webhookTracked_transactional: '6/6',
      duplicate: '2/2',
      webhookConfirmed: '4/4',
    });
  });

  it('PGlite: the starts, one round trip per call', async () => {
    const meter = new RoundTripMeter();
    const prefix = uniquePrefix('rt_pglite_starts');
    const metered = meteredPGlite(db, meter, () => statementNames(create()));
    const create = () => new PGliteStore({ db: metered, prefix });
    const paths = await startPaths(create, meter, 'rt_pglite_starts');
    expect(tallyPaths(paths)).toEqual(STARTS);
  });
});
