import type { PGliteInterface, Transaction } from '@electric-sql/pglite';
import type { Row, SqlDatabase, SqlQueryable, TransactionOutcome } from './sql-database.js';

function queryableOf(target: PGliteInterface | Transaction): SqlQueryable {
  return {
    async query(sql, params) {
      const result = await target.query<Row>(sql, params as unknown[]);
      return result.rows;
    },
  };
}

/** Thrown inside PGlite's transaction to roll it back, and caught right after. */
class RollBack<T> {
  constructor(readonly value: T) {}
}

/**
 * A PGlite instance. PGlite runs one statement or transaction at a time: a transaction
 * holds it exclusively, so the store's and a handler's statements in it are never
 * interleaved with others.
 */
export function pgliteDatabase(db: PGliteInterface): SqlDatabase<Transaction> {
  const direct = queryableOf(db);
  return {
    query: direct.query,
    queryAlone: direct.query,
    secrets: [],
    async transaction<T>(
      body: (queryable: SqlQueryable, transaction: Transaction) => Promise<TransactionOutcome<T>>,
    ): Promise<T> {
      try {
        return await db.transaction(async (tx) => {
          const outcome = await body(queryableOf(tx), tx);
          if (!outcome.commit) throw new RollBack(outcome.value);
          return outcome.value;
        });
      } catch (error) {
        if (error instanceof RollBack) return error.value as T;
        throw error;
      }
    },
  };
}
