import type { Pool, PoolClient } from 'pg';
import { PgClosedNotices } from './closed-notices.js';
import type { Row, SqlDatabase, SqlQueryable, TransactionOutcome } from './sql-database.js';
import { StatementLanes } from './statement-lanes.js';

function queryableOf(client: Pool | PoolClient): SqlQueryable {
  return {
    async query(sql, params) {
      const result = await client.query<Row>(sql, params as unknown[]);
      return result.rows;
    },
  };
}

/** Every password the pool could send, so that none is ever repeated in an error. */
function secretsOf(pool: Pool): string[] {
  const options = (pool as { options?: { password?: unknown; connectionString?: unknown } })
    .options;
  const secrets: string[] = [];
  if (typeof options?.password === 'string') secrets.push(options.password);
  if (typeof options?.connectionString === 'string') {
    secrets.push(options.connectionString);
    try {
      const password = decodeURIComponent(new URL(options.connectionString).password);
      if (password) secrets.push(password, encodeURIComponent(password));
    } catch {
      // Not a URL (a key=value string): its password is redacted by pattern.
    }
  }
  return secrets;
}

// Pools the store already listens on, so that several stores sharing one add one listener.
const listenedPools = new WeakSet<Pool>();

const ignore = () => undefined;

/**
 * An idle pooled connection that the server ends (a restart, a pooler restart,
 * `pg_terminate_backend`) is emitted as the pool's 'error' event, which kills the process
 * when nobody listens. The pool has already dropped that connection and the next checkout
 * opens a new one, so there is nothing to do but keep it from being unhandled.
 *
 * A checked-out connection has moments with no listener at all: pg-pool stops listening when
 * it hands a client out and listens once per query, so an error between a checkout and the
 * first statement, or a second error after a query's first, is emitted on the client with
 * nobody to hear it (a receiver behind PgBouncer died of it). Every connection the pool opens
 * therefore keeps a listener that ignores what it emits: the statements on it fail with the
 * error all the same, and pg-pool still drops it. (Connections the pool opened before the
 * store was created are not seen; a store is created with its pool, at start.)
 */
function listenOnPool(pool: Pool): void {
  if (listenedPools.has(pool)) return;
  listenedPools.add(pool);
  pool.on('error', ignore);
  pool.on('connect', (client) => client.on('error', ignore));
}

/**
 * A node-postgres `Pool`: statements pipelined on at most `lanes` of its connections (see
 * StatementLanes), those that may wait for a lock each on a connection of its own, and
 * transactions on one checked out.
 */
export function pgDatabase(pool: Pool, lanes: number): SqlDatabase<PoolClient> {
  const pipelined = new StatementLanes(pool, lanes);
  listenOnPool(pool);
  return {
    query: (sql, params) => pipelined.query(sql, params),
    queryAlone: queryableOf(pool).query,
    secrets: secretsOf(pool),
    mayFailOver: true,
    closedNotices: (channel) => new PgClosedNotices(pool, channel),
    async transaction<T>(
      body: (queryable: SqlQueryable, transaction: PoolClient) => Promise<TransactionOutcome<T>>,
    ): Promise<T> {
      const client = await pool.connect();
      // pg-pool stops listening on a client it hands out: a connection lost while the
      // transaction waits (on a handler, between statements) would be an unhandled 'error'
      // event. The loss is kept instead; the next statement (or COMMIT) fails with it.
      let lost: Error | undefined;
      const onError = (error: Error) => {
        lost ??= error;
      };
      client.on('error', onError);
      // A connection whose rollback failed is in an unknown state: it is destroyed, not reused.
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const outcome = await body(queryableOf(client), client);
        await client.query(outcome.commit ? 'COMMIT' : 'ROLLBACK');
        return outcome.value;
      } catch (error) {
        if (!lost) {
          await client.query('ROLLBACK').catch((rollbackError: Error) => {
            broken = rollbackError;
          });
        }
        // The server's own word (57P01 shutdown, 25P03 idle-in-transaction timeout) says more
        // than the driver's "not queryable" that every statement after the loss gets.
        throw lost ?? error;
      } finally {
        client.off('error', onError);
        client.release(lost ?? broken);
      }
    },
  };
}
