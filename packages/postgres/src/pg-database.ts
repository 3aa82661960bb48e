import type { Pool, PoolClient } from 'pg';
import type { Row, SqlDatabase, SqlQueryable, TransactionOutcome } from './sql-database.js';

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

/** A node-postgres `Pool`: statements on any connection, transactions on one checked out. */
export function pgDatabase(pool: Pool): SqlDatabase<PoolClient> {
  const direct = queryableOf(pool);
  return {
    query: direct.query,
    secrets: secretsOf(pool),
    async transaction<T>(
      body: (queryable: SqlQueryable, transaction: PoolClient) => Promise<TransactionOutcome<T>>,
    ): Promise<T> {
      const client = await pool.connect();
      // A connection whose rollback failed is in an unknown state: it is destroyed, not reused.
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const outcome = await body(queryableOf(client), client);
        await client.query(outcome.commit ? 'COMMIT' : 'ROLLBACK');
        return outcome.value;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
  };
}
