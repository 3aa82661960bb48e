/**
 * The parts of Cloudflare's D1 binding this package uses, described here so that neither the
 * package nor its users need `@cloudflare/workers-types` for it. A Worker's `env.DB` (typed
 * with workers-types or not) fits.
 */
export interface D1Result<Row = Record<string, unknown>> {
  results: Row[];
  /** What D1 reports about the statement; `rows_read` is what a query cost. */
  meta?: { rows_read?: number; rows_written?: number; changes?: number };
}

/** A statement prepared on a D1 database. */
export interface D1PreparedStatement {
  bind(...values: unknown[]): D1PreparedStatement;
  all<Row = Record<string, unknown>>(): Promise<D1Result<Row>>;
  run<Row = Record<string, unknown>>(): Promise<D1Result<Row>>;
}

/**
 * A D1 database binding. `batch` runs its statements as one transaction: all of them apply,
 * or none does.
 */
export interface D1Database {
  prepare(query: string): D1PreparedStatement;
  batch<Row = Record<string, unknown>>(statements: D1PreparedStatement[]): Promise<D1Result<Row>[]>;
}
