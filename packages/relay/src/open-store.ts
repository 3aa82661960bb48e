import { mkdirSync } from 'node:fs';
import type { Store } from '@faceverify/core/store';
import type { RelayStoreConfig } from './config.js';

/** The relay's store, opened and migrated, with what closes it. */
export interface OpenedStore {
  store: Store;
  /** Runs one statement on the store's database (PostgreSQL and PGlite): the outbox table. */
  query: ((sql: string) => Promise<unknown>) | undefined;
  close(): Promise<void>;
}

/**
 * Opens the store: PGlite in its data folder (created if missing), or a shared Redis or
 * PostgreSQL; migrates the SQL ones. Each client is loaded only when it is used.
 */
export async function openStore(config: RelayStoreConfig): Promise<OpenedStore> {
  switch (config.kind) {
    case 'pglite': {
      const [{ PGlite }, { PGliteStore }] = await Promise.all([
        import('@electric-sql/pglite'),
        import('@faceverify/postgres/pglite'),
      ]);
      mkdirSync(config.dataDir, { recursive: true });
      const db = new PGlite(config.dataDir);
      const store = new PGliteStore({ db });
      await store.migrate();
      return {
        store: store as Store,
        query: (sql) => db.query(sql),
        close: () => db.close(),
      };
    }
    case 'postgres': {
      const [{ default: pg }, { PostgresStore }] = await Promise.all([
        import('pg'),
        import('@faceverify/postgres'),
      ]);
      const pool = new pg.Pool({ connectionString: config.url });
      const store = new PostgresStore({ pool });
      await store.migrate();
      return {
        store: store as Store,
        query: (sql) => pool.query(sql),
        close: () => pool.end(),
      };
    }
    case 'redis': {
      const [{ Redis }, { RedisStore }] = await Promise.all([
        import('ioredis'),
        import('@faceverify/redis'),
      ]);
      // A command to an unreachable Redis fails within seconds: the Receiver reports the
      // store down (readyz answers 503) instead of waiting.
      const redis = new Redis(config.url, { commandTimeout: 5_000, maxRetriesPerRequest: 2 });
      // Its connection errors reach the Receiver as store failures (alarms, readyz).
      redis.on('error', () => undefined);
      const store = new RedisStore({
        redis,
        ...(config.prefix === undefined ? {} : { prefix: config.prefix }),
      });
      return {
        store: store as Store,
        query: undefined,
        close: async () => {
          await redis.quit().catch(() => redis.disconnect());
        },
      };
    }
  }
}
