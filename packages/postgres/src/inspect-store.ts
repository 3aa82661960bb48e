import type { StoredRecordHead, StoredRecordsCount } from '@faceverify/core';
import type { Pool } from 'pg';
import { storeError } from './errors.js';
import { type TableNames, tableNames } from './names.js';
import { pgDatabase } from './pg-database.js';
import type { SqlQueryable } from './sql-database.js';

/** Where a PostgresStore keeps its data: the pool, and the store's `schema` and `prefix`. */
export interface PostgresStoreLocation {
  pool: Pool;
  schema?: string | undefined;
  prefix?: string | undefined;
}

/** Characters of each field read: a sealed text's prefix and first key id, a stored user id. */
const HEAD_LENGTH = 128;
/** Records read per query. */
const BATCH = 1000;
const STORE_NAME = 'PostgresStore';

/**
 * Whether a PostgresStore's tables exist at `location` (`<schema>.<prefix>sessions`): a wrong
 * schema or prefix names tables no `migrate()` created. Reads only.
 */
export async function hasPostgresStoreData(location: PostgresStoreLocation): Promise<boolean> {
  const tables = tableNames(location.schema, location.prefix);
  const db = pgDatabase(location.pool, 0);
  try {
    return await tablesExist(db, tables);
  } catch (error) {
    throw storeError('hasPostgresStoreData', error, db.secrets, STORE_NAME);
  }
}

/**
 * Counts the records of a PostgresStore at `location` that readers still see by the class
 * `classify` gives each, from the start of its stored user, token and result; and says
 * whether the store's tables are there at all (see {@link hasPostgresStoreData}). Reads only,
 * a page of rows at a time in key order: for a command line, not for a request path.
 */
export async function countPostgresStoreRecords(
  location: PostgresStoreLocation,
  classify: (record: StoredRecordHead) => string,
  now: number = Date.now(),
): Promise<StoredRecordsCount> {
  const tables = tableNames(location.schema, location.prefix);
  const db = pgDatabase(location.pool, 0);
  const counts = new Map<string, number>();
  try {
    if (!(await tablesExist(db, tables))) return { found: false, counts };
    for (let after: string | undefined = ''; after !== undefined; ) {
      const rows = await db.query(
        `SELECT key, left(external_user_id, ${HEAD_LENGTH}) AS user_head,
           left(token, ${HEAD_LENGTH}) AS token_head, left(result, ${HEAD_LENGTH}) AS result_head
         FROM ${tables.sessions} WHERE key > $1::text AND drop_at > $2::bigint
         ORDER BY key LIMIT ${BATCH}`,
        [after, now],
      );
      for (const row of rows) {
        const kind = classify({
          user: String(row.user_head),
          token: typeof row.token_head === 'string' ? row.token_head : undefined,
          result: typeof row.result_head === 'string' ? row.result_head : undefined,
        });
        counts.set(kind, (counts.get(kind) ?? 0) + 1);
      }
      after = rows.length === BATCH ? String(rows.at(-1)?.key) : undefined;
    }
    return { found: true, counts };
  } catch (error) {
    throw storeError('countPostgresStoreRecords', error, db.secrets, STORE_NAME);
  }
}

async function tablesExist(db: SqlQueryable, tables: TableNames): Promise<boolean> {
  const [row] = await db.query('SELECT to_regclass($1::text) IS NOT NULL AS found', [
    tables.sessions,
  ]);
  return row?.found === true;
}
