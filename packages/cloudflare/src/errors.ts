import { FaceverifyError } from '@faceverify/core';
import { MalformedRowError } from '@faceverify/shared-sql';

/**
 * Why a D1Store operation failed:
 * - `schema_missing`: the tables are not there; the migrations were not applied.
 * - `unavailable`: D1 could not run the statement now (network lost, overloaded, reset, timed
 *   out). Retrying later is safe: a failed statement or batch changed nothing.
 * - `rejected`: D1 ran the statement and refused it (a constraint, a limit).
 * - `malformed`: a row in the store's tables is not one this store wrote.
 */
export type D1StoreFailure = 'schema_missing' | 'unavailable' | 'rejected' | 'malformed';

/** A D1Store operation could not be carried out. Its `code` is `store_error`. */
export class D1StoreError extends FaceverifyError {
  /** The Store method that failed, such as `leaseDue`. */
  readonly operation: string;
  readonly failure: D1StoreFailure;

  constructor(operation: string, failure: D1StoreFailure, message: string) {
    super('store_error', message);
    this.operation = operation;
    this.failure = failure;
  }
}

const TRANSIENT =
  /network connection lost|overloaded|internal error|reset|timed out|timeout|too many requests|unavailable/i;

function failureOf(message: string): D1StoreFailure {
  if (/no such table|no such column|no such index/i.test(message)) return 'schema_missing';
  return TRANSIENT.test(message) ? 'unavailable' : 'rejected';
}

const HOW_TO_FIX: Record<D1StoreFailure, string> = {
  schema_missing:
    'the faceverify tables are missing: apply the migrations of @faceverify/cloudflare (`wrangler d1 migrations apply <database>`, or `applyMigrations(db)` in tests)',
  unavailable: 'D1 could not run it now; nothing was changed and retrying later is safe',
  rejected: 'D1 refused the statement',
  malformed: 'a row in the faceverify tables was not written by this store; do not write to them',
};

/**
 * Wraps what went wrong in one operation. D1's message names the statement's failure, never
 * the bound values, so it is kept; the original error is not attached.
 */
export function d1StoreError(
  operation: string,
  error: unknown,
  failure?: D1StoreFailure,
): D1StoreError {
  const detail = error instanceof Error ? error.message : String(error);
  const resolved =
    failure ?? (error instanceof MalformedRowError ? 'malformed' : failureOf(detail));
  return new D1StoreError(
    operation,
    resolved,
    `D1Store.${operation} failed: ${HOW_TO_FIX[resolved]} (${detail})`,
  );
}
