import type { ClosedNoticeChannel } from './closed-notices.js';

/** A row as the driver returns it: int8 columns may come as strings or bigints. */
export type Row = Record<string, unknown>;

/** Runs one statement. */
export interface SqlQueryable {
  query(sql: string, params: readonly unknown[]): Promise<Row[]>;
}

/** What a transaction body decides: commit, or roll back (nothing it did is kept). */
export interface TransactionOutcome<T> {
  commit: boolean;
  value: T;
}

/**
 * The few things the store needs of a PostgreSQL connection: statements, and a
 * transaction whose own handle (`Transaction`) is given to transactional handlers.
 */
export interface SqlDatabase<Transaction> extends SqlQueryable {
  /**
   * Runs one statement that may wait for a row lock another transaction holds across round
   * trips (a delivery's transaction, for as long as its handler runs): on a connection of its
   * own, never behind or ahead of other statements on a shared one (`query` may share).
   */
  queryAlone(sql: string, params: readonly unknown[]): Promise<Row[]>;
  transaction<T>(
    body: (queryable: SqlQueryable, transaction: Transaction) => Promise<TransactionOutcome<T>>,
  ): Promise<T>;
  /** Credentials the driver was given, removed from every error message. */
  readonly secrets: readonly string[];
  /**
   * Whether the database is a server that may fail over to a replica (PostgreSQL, not
   * PGlite): settles then report where in its history they ran (see timeline-watch.ts).
   */
  readonly mayFailOver?: boolean;
  /** Where the driver can, a channel telling other processes which records closed. */
  closedNotices?(channel: string): ClosedNoticeChannel;
}
