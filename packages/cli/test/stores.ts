import type { Store } from '@faceverify/core/store';
import { PostgresStore } from '@faceverify/postgres';
import { RedisStore } from '@faceverify/redis';
import { startPostgresServer, startRedisServer } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';

/** A real Redis or PostgreSQL, started for one test file, with stores of their own in it. */
export interface StoreUnderTest {
  env: Record<string, string>;
  /** A new store with its own prefix, and the flags that name it on the command line. */
  create(): Promise<{ store: Store; flags: string[] }>;
  /** Flags naming a place where no store is: a prefix (or a schema) nobody used. */
  elsewhere(): string[];
  /** Every key or table at the place `flags` name, to see that nothing was written there. */
  written(flags: string[]): Promise<string[]>;
  stop(): Promise<void>;
}

let sequence = 0;

/** The value of `flag` in `flags`, or `fallback`. */
function flagValue(flags: string[], flag: string, fallback: string): string {
  const at = flags.indexOf(flag);
  return at < 0 ? fallback : (flags[at + 1] ?? fallback);
}

/** A Redis server; each store's prefix begins with `name`. `env` is added to REDIS_URL. */
export async function redisStores(
  name: string,
  env: Record<string, string> = {},
): Promise<StoreUnderTest> {
  const server = await startRedisServer();
  const redis = new Redis(server.url);
  return {
    env: { REDIS_URL: server.url, ...env },
    async create() {
      const prefix = `${name}${++sequence}:`;
      return { store: new RedisStore({ redis, prefix }), flags: ['--prefix', prefix] };
    },
    elsewhere: () => ['--prefix', `nothing${++sequence}:`],
    written: (flags) => redis.keys(`${flagValue(flags, '--prefix', 'faceverify:')}*`),
    async stop() {
      redis.disconnect();
      await server.stop();
    },
  };
}

/** A PostgreSQL database; each store's table prefix begins with `name`. */
export async function postgresStores(
  name: string,
  env: Record<string, string> = {},
): Promise<StoreUnderTest> {
  const server = await startPostgresServer();
  const url = server.url(await server.createDatabase(`faceverify_${name}`));
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    env: { DATABASE_URL: url, ...env },
    async create() {
      const prefix = `${name}${++sequence}_`;
      const store = new PostgresStore({ pool, prefix });
      await store.migrate();
      return { store, flags: ['--prefix', prefix] };
    },
    elsewhere: () => ['--schema', `nothing${++sequence}`],
    async written(flags) {
      const { rows } = await pool.query(
        `SELECT table_name FROM information_schema.tables
         WHERE table_schema = $1 AND starts_with(table_name, $2)`,
        [flagValue(flags, '--schema', 'public'), flagValue(flags, '--prefix', 'faceverify_')],
      );
      return rows.map((row) => String(row.table_name));
    },
    async stop() {
      await pool.end();
      await server.stop();
    },
  };
}
