import pg from 'pg';
import { afterAll, inject } from 'vitest';

const pools: pg.Pool[] = [];

afterAll(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

/** A pool on the run's database (or `url`), ended after the file's tests. */
export function connect(url = inject('postgresUrl'), options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 10, ...options });
  // An idle connection ended by a server restart must not crash the test process.
  pool.on('error', () => undefined);
  pools.push(pool);
  return pool;
}

let sequence = 0;

/** A table prefix of its own, so each test works on empty tables. */
export function uniquePrefix(label: string): string {
  return `t${process.pid}_${label}_${++sequence}_`;
}
