import { ConfigurationError } from '@faceverify/core';
import type { Pool, PoolClient } from 'pg';
import { storeError } from './errors.js';
import { pgDatabase } from './pg-database.js';
import type { SqlDatabase } from './sql-database.js';
import { SqlStore, type SqlStoreOptions } from './sql-store.js';

/** What `PostgresStore.replication()` read: whether a commit waits for a standby. */
export interface PostgresReplication {
  /** `synchronous_commit` of the store's connections (`on`, `remote_apply`, `local`, ...). */
  synchronousCommit: string;
  /** `synchronous_standby_names`; empty when no standby is synchronous. */
  synchronousStandbyNames: string;
  /**
   * Whether each commit is acknowledged only once a synchronous standby has it
   * (`synchronous_standby_names` set and `synchronous_commit` `on`, `remote_apply` or
   * `remote_write`): a failover to that standby then loses no acknowledged write. While no
   * synchronous standby is connected, commits wait (they do not fall back to asynchronous).
   */
  synchronous: boolean;
}

/** Options of `new PostgresStore(...)`. */
export interface PostgresStoreOptions extends SqlStoreOptions {
  /**
   * The node-postgres `Pool` to work through. The application owns it: the store never
   * ends it, and the application's own queries may share it. The store adds one `'error'`
   * listener to it, so an idle connection that the server ends never ends the process;
   * add your own to log those.
   */
  pool: Pool;
  /**
   * At most this many of the pool's connections carry the store's statements in pipeline
   * mode (node-postgres 8.23 and later), many at once each, so that a burst of webhooks waits
   * for the database's round trips and not for a free connection (docs/polling-and-stores.md,
   * "Connections"). A connection carries statements only while some are in flight, so the
   * others stay free for transactions (transactional handlers, inserts bounded per user) and
   * the application's own queries. Statements that may wait for a row lock (an erasure, an
   * insert) always take a connection of their own. `0` sends every statement on a connection
   * of its own, as `pool.query` does, for a proxy that does not pass pipelined statements.
   * Default: half the pool's `max`, at least 1.
   */
  pipelinedConnections?: number;
}

/** `pipelinedConnections` as given, or half the pool's `max` (pg-pool's default 10). */
function pipelinedConnectionsOf(pool: Pool, given: number | undefined): number {
  if (given !== undefined) {
    if (!Number.isInteger(given) || given < 0) {
      throw new ConfigurationError(
        `PostgresStore's pipelinedConnections must be a whole number, 0 or more; got ${String(given)}.`,
      );
    }
    return given;
  }
  const max = (pool as { options?: { max?: unknown } }).options?.max;
  return Math.max(1, Math.floor((typeof max === 'number' && max > 0 ? max : 10) / 2));
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
  private readonly database: SqlDatabase<PoolClient>;

  constructor(options: PostgresStoreOptions) {
    const pool = options?.pool;
    if (!pool || typeof pool.query !== 'function' || typeof pool.connect !== 'function') {
      throw new ConfigurationError(
        'PostgresStore needs `pool`: a node-postgres Pool, e.g. new PostgresStore({ pool: new pg.Pool({ connectionString }) }).',
      );
    }
    const database = pgDatabase(pool, pipelinedConnectionsOf(pool, options.pipelinedConnections));
    super(database, options, 'PostgresStore');
    this.database = database;
  }

  /**
   * The PostgreSQL server's current time (`clock_timestamp()`), in ms since the epoch: one
   * statement, also through PgBouncer in transaction mode. Every instance sharing the
   * database reads the same clock.
   */
  async readClock(): Promise<number> {
    const [row] = await this.select(
      'readClock',
      'SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now',
    );
    const now = Number(row?.now);
    if (!Number.isFinite(now)) {
      throw storeError('readClock', new TypeError('no time read'), [], 'PostgresStore');
    }
    return now;
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
  async replication(): Promise<PostgresReplication> {
    const [row] = await this.select(
      'replication',
      `SELECT current_setting('synchronous_commit') AS commit,
        current_setting('synchronous_standby_names') AS names`,
    );
    const synchronousCommit = String(row?.commit ?? '');
    const synchronousStandbyNames = String(row?.names ?? '');
    return {
      synchronousCommit,
      synchronousStandbyNames,
      synchronous:
        synchronousStandbyNames.trim() !== '' &&
        ['on', 'remote_apply', 'remote_write'].includes(synchronousCommit),
    };
  }

  /** One statement of the store's own, its failure a PostgresStoreError without secrets. */
  private async select(operation: string, sql: string) {
    try {
      return await this.database.query(sql, []);
    } catch (error) {
      throw storeError(operation, error, this.database.secrets, 'PostgresStore');
    }
  }
}
