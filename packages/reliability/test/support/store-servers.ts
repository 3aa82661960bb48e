import type { PGlite } from '@electric-sql/pglite';
import {
  type PostgresServer,
  type RedisServer,
  startPostgresServer,
  startRedisServer,
} from '@faceverify/test-support';
import { startPGlite } from '@faceverify/test-support/pglite';

/** A redis-server, a PostgreSQL cluster and an in-process PGlite, for one test file's stores. */
export interface StoreServers {
  redis: RedisServer;
  postgres: PostgresServer;
  pglite: PGlite;
  stop(): Promise<void>;
}

export async function startStoreServers(): Promise<StoreServers> {
  // PGlite's WebAssembly start takes seconds on a busy machine: a hook's time, not a test's.
  const [redis, postgres, pglite] = await Promise.all([
    startRedisServer(),
    startPostgresServer(),
    startPGlite(),
  ]);
  return {
    redis,
    postgres,
    pglite,
    async stop() {
      await pglite.close();
      await Promise.all([redis.stop(), postgres.stop()]);
    },
  };
}
