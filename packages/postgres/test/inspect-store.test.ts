import { describe, expect, it } from 'vitest';
import { countPostgresStoreRecords, hasPostgresStoreData, PostgresStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';
import { trackedSession } from './support/records.js';

// What a command line reads before it acts: whether a schema and prefix name a store's
// tables, and its records by what keyed them, reading only.

describe('inspecting a PostgresStore without writing', () => {
  it('finds no tables under an unused prefix or schema, and creates none', async () => {
    const pool = connect();
    const prefix = uniquePrefix('inspect_none');
    for (const location of [{ prefix }, { schema: 'no_such_schema', prefix }]) {
      expect(await hasPostgresStoreData({ pool, ...location })).toBe(false);
      expect(await countPostgresStoreRecords({ pool, ...location }, () => 'record')).toEqual({
        found: false,
        counts: new Map(),
      });
    }
    const { rows } = await pool.query(
      'SELECT table_name FROM information_schema.tables WHERE starts_with(table_name, $1)',
      [prefix],
    );
    expect(rows).toEqual([]);
  });

  it('counts the records readers still see by the class given the start of their fields', async () => {
    const pool = connect();
    const prefix = uniquePrefix('inspect_records');
    const store = new PostgresStore({ pool, prefix });
    await store.migrate();
    expect(await hasPostgresStoreData({ pool, prefix })).toBe(true);
    expect(await countPostgresStoreRecords({ pool, prefix }, () => 'record')).toEqual({
      found: true,
      counts: new Map(),
    });
    const now = Date.now();
    const live = { createdAt: now, dueAt: now, expiresAt: now + 3_600_000 };
    const sealedToken = `fvt1.keyA.${'x'.repeat(400)}`;
    await store.insert({
      record: trackedSession({
        ...live,
        key: 'k1',
        externalUserId: 'u1:hash-one',
        token: sealedToken,
      }),
      now,
    });
    await store.insert({
      record: trackedSession({ ...live, key: 'k2', externalUserId: 'plain' }),
      now,
    });
    // Past the end of its time: a row readers no longer see, until pruning deletes it.
    await store.insert({
      record: trackedSession({ key: 'k3', createdAt: 1_000, expiresAt: 61_000, dueAt: 1_000 }),
      now: 1_000,
    });
    const seen: unknown[] = [];
    const counted = await countPostgresStoreRecords(
      { pool, prefix },
      (record) => {
        seen.push(record);
        return record.user.startsWith('u1:') ? 'hashed' : 'clear';
      },
      now,
    );
    expect(counted).toEqual({
      found: true,
      counts: new Map([
        ['hashed', 1],
        ['clear', 1],
      ]),
    });
    expect(seen).toContainEqual({
      user: 'u1:hash-one',
      token: sealedToken.slice(0, 128),
      result: undefined,
    });
  });

  it('reads every page of a store larger than one', async () => {
    const pool = connect();
    const prefix = uniquePrefix('inspect_pages');
    const store = new PostgresStore({ pool, prefix });
    await store.migrate();
    const now = Date.now();
    await pool.query(
      `INSERT INTO ${store.tables.sessions} (key, external_user_id, created_at, expires_at, state, due_at)
       SELECT 'k' || n, 'u' || n, $1::bigint, $1::bigint + 3600000, 'pending', $1::bigint
       FROM generate_series(1, 2500) AS n`,
      [now],
    );
    const counted = await countPostgresStoreRecords({ pool, prefix }, () => 'record');
    expect(counted.counts.get('record')).toBe(2500);
  });
});
