import { type PgBouncerServer, startPgBouncer } from '@faceverify/test-support';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PostgresStore, PostgresStoreError } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';
import { trackedSession } from './support/records.js';

// Issue 19, item 2: the store behind a real PgBouncer (Debian `pgbouncer`), as documented in
// docs/polling-and-stores.md, "Behind a connection pooler".

const url = new URL(inject('postgresUrl'));
const database = url.pathname.slice(1);
const poolers: PgBouncerServer[] = [];

beforeAll(async () => {
  for (const poolMode of ['transaction', 'session'] as const) {
    poolers.push(
      await startPgBouncer(
        {
          host: '127.0.0.1',
          port: Number(url.port),
          user: 'postgres',
          password: decodeURIComponent(url.password),
        },
        { poolMode },
      ),
    );
  }
});
afterAll(async () => {
  await Promise.all(poolers.map((pooler) => pooler.stop()));
});

describe('PostgresStore behind PgBouncer', () => {
  for (const [index, mode] of ['transaction', 'session'].entries()) {
    it(`migrates, tracks and settles in a transaction in ${mode} pooling`, async () => {
      const store = new PostgresStore({
        pool: connect(poolers[index]!.url(database)),
        prefix: uniquePrefix(`pooled_${mode}`),
      });
      expect((await store.migrate()).applied.length).toBeGreaterThan(0);
      const record = trackedSession();
      await store.insert({ record, now: 1_000, maxOpenPerUser: 2 });
      await store.lease({ key: record.key, owner: 'a', now: 1_000, leaseMs: 5_000 });
      const outcome = await store.settleWith(
        { key: record.key, owner: 'a', now: 1_001, update: { state: 'completed', retainMs: 1 } },
        async (client) => (await client.query('SELECT 41 + 1 AS answer')).rows[0].answer,
      );
      expect(outcome).toEqual({ settled: true, value: 42 });
      expect((await store.get({ key: record.key, now: 1_001 }))?.state).toBe('completed');
    });
  }

  it('reads the server clock through transaction pooling (readClock)', async () => {
    const store = new PostgresStore({
      pool: connect(poolers[0]!.url(database)),
      prefix: uniquePrefix('pooled_clock'),
    });
    const before = Date.now();
    const clock = await store.readClock();
    expect(clock).toBeGreaterThan(before - 5_000);
    expect(clock).toBeLessThan(Date.now() + 5_000);
  });

  for (const [name, settings] of [
    ['statement_timeout', { statement_timeout: 30_000 }],
    ['idle_in_transaction_session_timeout', { idle_in_transaction_session_timeout: 10_000 }],
    ['options', { options: '-c lock_timeout=5000' }],
  ] as const) {
    it(`reports a refused startup parameter (${name}) as configuration, with the fix`, async () => {
      const store = new PostgresStore({
        pool: connect(poolers[0]!.url(database), settings),
        prefix: uniquePrefix('pooled_refused'),
      });
      const error = await store.migrate().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(PostgresStoreError);
      const refused = error as PostgresStoreError;
      expect(refused.failure).toBe('configuration');
      expect(refused.sqlState).toBe('08P01');
      expect(refused.message).toMatch(/settings were refused/);
      expect(refused.message).toMatch(/unsupported startup parameter/);
      expect(refused.message).toMatch(/ALTER ROLE/);
      expect(refused.message).toMatch(/ignore_startup_parameters/);
      expect(refused.message).not.toContain(decodeURIComponent(url.password));
    });
  }
});
