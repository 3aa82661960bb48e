import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '@faceverify/core';
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { MIGRATIONS } from '../src/migrations.js';
import { tableNames } from '../src/names.js';
import { connect, uniquePrefix } from './support/pools.js';

const folder = join(import.meta.dirname, '..', 'migrations');

describe('migrations', () => {
  it('ship as SQL files, with the default schema and prefix, for other migration tools', () => {
    const rendered = MIGRATIONS.map((migration) => ({
      name: migration.name,
      sql: migration.sql(tableNames()),
    }));
    // FACEVERIFY_WRITE_MIGRATIONS=1 rewrites the files after a change to src/migrations.ts.
    if (process.env.FACEVERIFY_WRITE_MIGRATIONS === '1') {
      for (const { name, sql } of rendered) writeFileSync(join(folder, name), sql);
    }
    expect(readdirSync(folder).sort()).toEqual(rendered.map(({ name }) => name).sort());
    for (const { name, sql } of rendered) {
      expect(readFileSync(join(folder, name), 'utf8'), name).toBe(sql);
    }
    expect(rendered[0]!.sql).toContain('CREATE TABLE public.faceverify_sessions');
  });

  it('migrate() applies each migration once, and is a no-op afterwards', async () => {
    const pool = connect();
    const prefix = uniquePrefix('migrate');
    const store = new PostgresStore({ pool, prefix });
    expect(await store.migrate()).toEqual({
      applied: [
        '0001_create_tables.sql',
        '0002_result_as_text.sql',
        '0003_dead_letters_index.sql',
        '0004_starts.sql',
      ],
    });
    expect(await store.migrate()).toEqual({ applied: [] });
    const { rows } = await pool.query(
      `SELECT version, name FROM public.${prefix}migrations ORDER BY version`,
    );
    expect(rows).toEqual([
      { version: 1, name: '0001_create_tables.sql' },
      { version: 2, name: '0002_result_as_text.sql' },
      { version: 3, name: '0003_dead_letters_index.sql' },
      { version: 4, name: '0004_starts.sql' },
    ]);
  });

  it('is safe when several instances start together (advisory lock)', async () => {
    const prefix = uniquePrefix('together');
    const stores = Array.from(
      { length: 4 },
      () => new PostgresStore({ pool: connect(undefined, { max: 2 }), prefix }),
    );
    const reports = await Promise.all(stores.map((store) => store.migrate()));
    expect(reports.flatMap((report) => report.applied)).toEqual([
      '0001_create_tables.sql',
      '0002_result_as_text.sql',
      '0003_dead_letters_index.sql',
      '0004_starts.sql',
    ]);
  });

  it('creates the tables in a schema of the caller’s choice, created when missing', async () => {
    const pool = connect();
    const schema = `s_${uniquePrefix('schema')}`.replace(/_$/, '');
    const store = new PostgresStore({ pool, schema, prefix: 'fv_' });
    await store.migrate();
    const { rows } = await pool.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
      [schema],
    );
    expect(rows.map((row) => row.table_name)).toEqual([
      'fv_digests',
      'fv_migrations',
      'fv_sessions',
      'fv_start_counts',
      'fv_starts',
    ]);
    expect(store.tables.sessions).toBe(`${schema}.fv_sessions`);
    const { rows: indexes } = await pool.query(
      `SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY 1`,
      [schema],
    );
    expect(indexes.map((row) => row.indexname)).toContain('fv_sessions_due');
  });

  it('accepts only plain identifiers as schema and prefix', () => {
    const pool = connect();
    expect(() => new PostgresStore({ pool, prefix: 'x"; DROP TABLE users; --' })).toThrow(
      ConfigurationError,
    );
    expect(() => new PostgresStore({ pool, schema: 'Public' })).toThrow(/schema/);
    expect(() => new PostgresStore({} as { pool: never })).toThrow(/needs `pool`/);
  });

  // Issue 18, item 6: an option error must not print what was given, a credential perhaps.
  it('never repeats a refused schema or prefix in the error', () => {
    const pool = connect();
    const secret = 'postgres://u:S3cret-PASSWORD@db.example:5432/app';
    for (const options of [{ schema: secret }, { prefix: secret }]) {
      const error = (() => {
        try {
          new PostgresStore({ pool, ...options });
        } catch (caught) {
          return caught as Error;
        }
        throw new Error('the store accepted a connection string as a name');
      })();
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error.message).toMatch(/must be a plain lower-case SQL identifier/);
      expect(`${error.message} ${error.stack}`).not.toContain('S3cret-PASSWORD');
      expect(`${error.message} ${error.stack}`).not.toContain('db.example');
    }
  });
});
