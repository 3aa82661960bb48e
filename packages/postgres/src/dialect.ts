import type { SqlDialect } from '@faceverify/shared-sql';
import type { TableNames } from './names.js';

/**
 * PostgreSQL's side of the shared statements: the tables of `names`, typed parameters as
 * written (PGlite and node-postgres both send parameters as text, so each is cast), and no
 * `purge_at` for open records, whose generated `drop_at` is a day past their expiry and due time.
 */
export function postgresDialect({ sessions, digests }: TableNames): SqlDialect {
  return {
    sessions,
    digests,
    liveUntil: 'drop_at',
    openPurgeAt: () => 'NULL',
    inList: (column, parameter) => `${column} = ANY($${parameter}::text[])`,
    placeholders: (sql) => sql,
  };
}
