import { OPEN_RECORD_GRACE_MS, type SqlDialect } from '@faceverify/shared-sql';

/**
 * D1's side of the shared statements: its fixed table names, numbered parameters (`?1`, as
 * D1 binds them; SQLite needs no casts), and `purge_at` written on every write of an open
 * record, as SQLite has no generated `drop_at` here.
 */
export const D1_DIALECT: SqlDialect = {
  sessions: 'faceverify_records',
  digests: 'faceverify_digests',
  liveUntil: 'purge_at',
  openPurgeAt: (expiresAt, dueAt) => `MAX(${expiresAt}, ${dueAt}) + ${OPEN_RECORD_GRACE_MS}`,
  inList: (column, parameter) => `${column} IN (SELECT value FROM json_each($${parameter}::text))`,
  placeholders: (sql) => sql.replace(/\$(\d+)::[a-z]+/g, '?$1'),
};
