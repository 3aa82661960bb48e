// How long past both its expiry and its due time an open record is kept: the Store contract's
// (rule 8), as every store keeps it. A closed record is kept until its retention ends.
export { OPEN_RECORD_GRACE_MS } from '@faceverify/core/store';

/**
 * What the shared statements need to know of one database: where the tables are, how a row's
 * end of life is kept, and how parameters are written. The statements are written with
 * PostgreSQL's typed parameters (`$1::text`); `placeholders` turns them into the database's own.
 */
export interface SqlDialect {
  /** The sessions table as it goes into SQL (schema-qualified where the database has schemas). */
  readonly sessions: string;
  /** The replay window's digests table. */
  readonly digests: string;
  /**
   * The column holding when a row stops existing for readers: PostgreSQL's `drop_at`, which
   * it generates from `purge_at`; D1 (SQLite without the generated column) keeps `purge_at`
   * itself up to date on every write.
   */
  readonly liveUntil: string;
  /**
   * The `purge_at` written for an open record whose expiry and due time are the SQL
   * expressions `expiresAt` and `dueAt`: `NULL` on PostgreSQL, where `drop_at` derives it;
   * `OPEN_RECORD_GRACE_MS` past the later of the two on D1.
   */
  openPurgeAt(expiresAt: string, dueAt: string): string;
  /**
   * The condition that `column` is one of the texts of parameter `$<parameter>`, a list: on
   * PostgreSQL an array (`= ANY`), on D1 a JSON array (`json_each`), as each store binds it.
   * Either reads the column's index once per text.
   */
  inList(column: string, parameter: number): string;
  /** The statement with its `$n::type` parameters written as the database takes them. */
  placeholders(sql: string): string;
}
