import { type PgBouncerServer, startPgBouncer } from '@faceverify/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';
import { trackedSession } from './support/records.js';

// Issue 45: a burst of webhooks on a store far away waited for pooled connections, each held
// a round trip per statement. The store's statements now share a few connections in
// node-postgres's pipeline mode; these pin what that must keep: every answer its own, a
// failure its statement's alone, the connections back in the pool, and no statement held up
// behind one that waits for a lock.

/** Per connection of `pool`: statements sent, the most in flight at once, whether it ended. */
function meterConnections(pool: pg.Pool) {
  const connections: { sent: number; mostInFlight: number; ended: boolean }[] = [];
  pool.on('connect', (client) => {
    const seen = { sent: 0, mostInFlight: 0, ended: false };
    connections.push(seen);
    client.on('end', () => {
      seen.ended = true;
    });
    let inFlight = 0;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      seen.sent++;
      seen.mostInFlight = Math.max(seen.mostInFlight, ++inFlight);
      const done = () => {
        inFlight--;
      };
      // `pool.query` passes a callback; the store's lanes take the promise.
      const callback = args.at(-1);
      if (typeof callback === 'function') {
        args[args.length - 1] = (...results: unknown[]) => {
          done();
          return callback(...results);
        };
        return query(...args);
      }
      const answer = query(...args) as Promise<unknown>;
      answer.then(done, done);
      return answer;
    };
  });
  return connections;
}

/** A store of its own on `pool`, migrated. */
async function storeOn(pool: pg.Pool, label: string, pipelinedConnections?: number) {
  const store = new PostgresStore({
    pool,
    prefix: uniquePrefix(label),
    ...(pipelinedConnections === undefined ? {} : { pipelinedConnections }),
  });
  await store.migrate();
  return store;
}

/** `count` webhooks' first step at once: each remembers its digest and looks its user up. */
function burst(store: PostgresStore, count: number, now = 1_000) {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      Promise.all([
        store.remember({ digest: `digest_${i}`, ttlMs: 60_000, now }),
        store.findByUser({ externalUserId: `user_${i}`, now, limit: 10 }),
      ]),
    ),
  );
}

const url = new URL(inject('postgresUrl'));
let pooler: PgBouncerServer;

beforeAll(async () => {
  pooler = await startPgBouncer(
    {
      host: '127.0.0.1',
      port: Number(url.port),
      user: 'postgres',
      password: decodeURIComponent(url.password),
    },
    { poolMode: 'transaction' },
  );
});
afterAll(async () => {
  await pooler.stop();
});

describe('PostgresStore pipelines its statements on a few connections', () => {
  for (const [where, address] of [
    ['directly', () => undefined],
    ['through PgBouncer in transaction pooling', () => pooler.url(url.pathname.slice(1))],
  ] as const) {
    it(`sends a burst of 40 statements on one connection at once, each answered with its own rows (${where})`, async () => {
      const pool = connect(address());
      const connections = meterConnections(pool);
      const store = await storeOn(pool, 'pipelined', 1);
      const records = Array.from({ length: 20 }, (_, i) =>
        trackedSession({ externalUserId: `user_${i}` }),
      );
      for (const record of records) await store.insert({ record, now: 1_000 });
      const opened = connections.length;

      const answers = await burst(store, 20);

      expect(answers.map(([remembered]) => remembered)).toEqual(records.map(() => true));
      expect(answers.map(([, found]) => found.map((record) => record.key))).toEqual(
        records.map((record) => [record.key]),
      );
      // The 40 statements went out together on one connection the pool already had.
      expect(connections.length).toBe(opened);
      expect(Math.max(...connections.map((connection) => connection.mostInFlight))).toBe(40);
      // And it is back in the pool, out of pipeline mode.
      expect(pool.totalCount).toBe(pool.idleCount);
      const clients = await Promise.all(
        Array.from({ length: pool.totalCount }, () => pool.connect()),
      );
      for (const client of clients) {
        expect((client as { pipeline?: boolean }).pipeline).toBe(false);
        client.release();
      }
      expect(await burst(store, 20)).toHaveLength(20);
    });
  }

  it('spreads statements over up to pipelinedConnections connections, each with many in flight, and gives every one back', async () => {
    const pool = connect(undefined, { max: 10 });
    const connections = meterConnections(pool);
    const store = await storeOn(pool, 'lanes', 3);
    const opened = connections.length;

    await burst(store, 60);

    const used = connections.filter((connection) => connection.sent > 0);
    expect(connections.length - opened).toBeLessThanOrEqual(3);
    expect(Math.max(...used.map((connection) => connection.mostInFlight))).toBeGreaterThan(1);
    expect(pool.idleCount).toBe(pool.totalCount);
  });

  it('a failing statement fails alone: the others on its connection are answered, and the connection is not used again', async () => {
    const pool = connect();
    const connections = meterConnections(pool);
    const store = await storeOn(pool, 'failing', 1);
    await burst(store, 1);
    const opened = connections.length;
    // A key the database refuses (a NUL byte in text): the statement fails.
    const refused = store.get({ key: 'before\u0000after', now: 1_000 });
    const others = burst(store, 5);

    await expect(refused).rejects.toThrow();
    expect(await others).toHaveLength(5);
    // They all went on the one connection, which is then closed, not given back for reuse.
    expect(connections.filter((connection) => connection.sent > 0)).toHaveLength(1);
    await vi.waitFor(() => expect(connections[0]?.ended).toBe(true));
    expect(await burst(store, 5)).toHaveLength(5);
    expect(connections.length).toBe(opened + 1);
  });

  it('an erasure waiting for a delivery transaction holds up no other statement, even on one pipelined connection', async () => {
    const pool = connect(undefined, { max: 4 });
    const store = await storeOn(pool, 'erasure', 1);
    const record = trackedSession({ externalUserId: 'erased_user' });
    await store.insert({ record, now: 1_000 });
    await store.lease({ key: record.key, owner: 'a', now: 1_000, leaseMs: 60_000 });
    let entered: () => void = () => undefined;
    const inTransaction = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const delivery = store.settleWith(
      { key: record.key, owner: 'a', now: 1_001, update: { state: 'completed', retainMs: 1_000 } },
      async () => {
        entered();
        await released;
      },
    );
    await inTransaction;
    let erased = false;
    const erasure = store.forgetUser({ externalUserId: 'erased_user', now: 1_002 }).then((n) => {
      erased = true;
      return n;
    });

    // The erasure waits for the record's row lock; statements made after it are answered.
    const answers = await burst(store, 10, 1_002);
    expect(answers.map(([remembered]) => remembered)).toEqual(answers.map(() => true));
    expect(erased).toBe(false);

    release();
    expect(await delivery).toEqual({ settled: true, value: undefined });
    expect(await erasure).toBe(1);
  });

  it('pipelinedConnections 0 sends each statement on a connection of its own', async () => {
    const pool = connect();
    const connections = meterConnections(pool);
    const store = await storeOn(pool, 'unpipelined', 0);

    await burst(store, 10);

    expect(Math.max(...connections.map((connection) => connection.mostInFlight))).toBe(1);
  });

  it('a driver without pipeline mode gets each statement on a connection of its own', async () => {
    class UnpipelinedClient extends pg.Client {
      constructor(config?: pg.ClientConfig) {
        super(config);
        delete (this as { pipeline?: boolean }).pipeline;
      }
    }
    const pool = connect(undefined, { Client: UnpipelinedClient });
    const connections = meterConnections(pool);
    const store = await storeOn(pool, 'old_driver');

    const answers = await burst(store, 10);

    expect(answers.map(([remembered]) => remembered)).toEqual(answers.map(() => true));
    expect(Math.max(...connections.map((connection) => connection.mostInFlight))).toBe(1);
  });

  it('refuses a pipelinedConnections that is not a whole number, naming the option', () => {
    for (const pipelinedConnections of [-1, 1.5, Number.NaN]) {
      expect(() => new PostgresStore({ pool: connect(), pipelinedConnections })).toThrow(
        /pipelinedConnections must be a whole number/,
      );
    }
  });
});
