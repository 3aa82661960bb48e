import { ConfigurationError } from '@faceverify/core';
import type { Pool, PoolClient } from 'pg';
import { pgDatabase } from './pg-database.js';
import { type PostgresReplication, SqlStore, type SqlStoreOptions } from './sql-store.js';

/** Options of `new PostgresStore(...)`. */
export interface PostgresStoreOptions extends SqlStoreOptions {
  /**
   * The node-postgres `Pool` to work through. The application owns it: the store never
   * ends it, and the application's own queries may share it. The store adds one `'error'`
   * listener to it, so an idle connection that the server ends never ends the process;
   * add your own to log those.
   */
  pool: Pool;
}

/**
 * A Store on PostgreSQL through node-postgres: tracked sessions survive restarts and are
 * shared by every instance, and handlers registered with `{ transactional: true }` run in
 * the transaction that records their delivery (`context.transaction` is its `PoolClient`),
 * so their writes happen exactly once, even across crashes.
 *
 * @example
 * import pg from 'pg';
 * import { createReceiver } from '@faceverify/core';
 * import { PostgresStore } from '@faceverify/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * pool.on('error', (error) => console.warn('PostgreSQL dropped an idle connection:', error.message));
 * const store = new PostgresStore({ pool });
 * await store.migrate();
 * const receiver = createReceiver({ secret: process.env.WEBHOOK_SECRET!, store });
 * receiver.on('verification.completed', async (event, { transaction }) => {
 *   await transaction.query('UPDATE users SET verified = $1 WHERE id = $2', [
 *     event.data.status === 'verified',
 *     event.data.external_user_id,
 *   ]);
 * }, { transactional: true });
 */
export class PostgresStore extends SqlStore<PoolClient> {
  constructor(options: PostgresStoreOptions) {
    const pool = options?.pool;
    if (!pool || typeof pool.query !== 'function' || typeof pool.connect !== 'function') {
      throw new ConfigurationError(
        'PostgresStore needs `pool`: a node-postgres Pool, e.g. new PostgresStore({ pool: new pg.Pool({ connectionString }) }).',
      );
    }
    super(pgDatabase(pool), options, 'PostgresStore');
  }

  /**
   * The PostgreSQL server's current time (`clock_timestamp()`), in ms since the epoch: one
   * statement, also through PgBouncer in transaction mode. Every instance sharing the
   * database reads the same clock.
   */
  readClock(): Promise<number> {
    return this.readServerClock();
  }

  /**
   * Reads whether the store's commits wait for a synchronous standby, which is what keeps
   * an acknowledged write (a recorded success) across a failover: `synchronous` is true when
   * `synchronous_standby_names` is set and `synchronous_commit` is `on`, `remote_apply` or
   * `remote_write`. One statement; call it at startup and log or refuse what you must not run.
   *
   * @example
   * const { synchronous } = await store.replication();
   * if (!synchronous) console.warn('PostgreSQL replicates asynchronously: a failover may lose recorded successes');
   */
  replication(): Promise<PostgresReplication> {
    return this.readReplication();
  }
}
