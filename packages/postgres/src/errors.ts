import { FaceverifyError } from '@faceverify/core';
import { MalformedRowError } from '@faceverify/shared-sql';

/**
 * Why a store operation failed:
 * - `unreachable`: no answer from PostgreSQL (refused or lost connection, server shutting
 *   down or starting, too many connections). Retrying later is safe.
 * - `schema_missing`: the store's tables do not exist: run `await store.migrate()` (or the
 *   package's `migrations/*.sql`) first.
 * - `configuration`: the connection settings were refused, such as a startup parameter
 *   (`statement_timeout`, `options`) that a pooler like PgBouncer does not pass on; the
 *   message says what to change. Retrying does not help.
 * - `rejected`: PostgreSQL answered with another error; `sqlState` says which.
 * - `malformed`: a row in the store's tables is not one this store wrote.
 */
export type PostgresStoreFailure =
  | 'unreachable'
  | 'schema_missing'
  | 'configuration'
  | 'rejected'
  | 'malformed';

/**
 * A PostgresStore operation could not be carried out. Never carries a connection string or
 * a password: the driver's error is not attached, only its message (redacted) and SQLSTATE.
 */
export class PostgresStoreError extends FaceverifyError {
  /** The Store method that failed, such as `leaseDue`. */
  readonly operation: string;
  readonly failure: PostgresStoreFailure;
  /** PostgreSQL's SQLSTATE code of the error, when the server sent one (e.g. `42P01`). */
  readonly sqlState: string | undefined;

  constructor(
    operation: string,
    failure: PostgresStoreFailure,
    message: string,
    sqlState?: string,
  ) {
    super('store_error', message);
    this.operation = operation;
    this.failure = failure;
    this.sqlState = sqlState;
  }
}

const URL_CREDENTIALS = /(\w+:\/\/)[^@/\s]*@/g;
/**
 * The shortest password hidden wherever it stands in a message. Shorter ones are hidden only
 * where a connection URL or a `password=…` setting places them.
 */
const MIN_FREE_TEXT_SECRET = 4;
const KEY_VALUE_PASSWORD = /(password\s*=\s*)('[^']*'|\S+)/gi;

/** Removes passwords, and credentials written into a connection string, from a message. */
export function redact(message: string, secrets: readonly string[]): string {
  let text = message.replace(URL_CREDENTIALS, '$1***@').replace(KEY_VALUE_PASSWORD, '$1***');
  // Whole words only: a one-letter password must not turn "max" into "ma***". And none
  // shorter than MIN_FREE_TEXT_SECRET: "a", "1" or "0" stands alone in every sentence and
  // address ("127.0.0.***"), and hiding each would hide nothing but the message.
  for (const secret of secrets) {
    if (secret.length < MIN_FREE_TEXT_SECRET) continue;
    const pattern = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    text = text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${pattern}(?![\\p{L}\\p{N}])`, 'gu'), '***');
  }
  return text;
}

function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

// SQLSTATEs that mean the server is not there to answer: connection exceptions (08),
// shutdown and startup (57P01-57P03), too many connections (53300).
const UNREACHABLE_STATES = /^(08...|57P0[123]|53300)$/;

// PgBouncer answers a startup parameter it does not pass on with 08P01, a protocol violation
// that is no outage: only the message tells it apart.
const REFUSED_STARTUP_PARAMETER = /unsupported startup parameter/i;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function failureOf(error: unknown): PostgresStoreFailure {
  if (error instanceof MalformedRowError) return 'malformed';
  const state = sqlStateOf(error);
  if (state === '08P01' && REFUSED_STARTUP_PARAMETER.test(messageOf(error))) {
    return 'configuration';
  }
  if (state === '42P01' || state === '3F000') return 'schema_missing';
  if (state && !UNREACHABLE_STATES.test(state)) return 'rejected';
  return 'unreachable';
}

const DESCRIPTION: Record<PostgresStoreFailure, string> = {
  unreachable: 'PostgreSQL did not answer',
  configuration: "the connection's settings were refused",
  schema_missing: "the store's tables do not exist; run `await store.migrate()` first",
  rejected: 'PostgreSQL answered with an error',
  malformed: "a row in the store's tables was not written by this store; do not write to them",
};

// What to do about the errors whose cause is the application's own settings.
const FAILURE_HINTS: Partial<Record<PostgresStoreFailure, string>> = {
  configuration:
    "a connection pooler (PgBouncer) passes on only the startup parameters in its track_extra_parameters and drops those in ignore_startup_parameters; remove the parameter from the pool's settings (statement_timeout, idle_in_transaction_session_timeout, options) and set it on the role or database instead (ALTER ROLE app SET statement_timeout = '30s'), or add it to ignore_startup_parameters",
};
const SQLSTATE_HINTS: Record<string, string> = {
  '25P03':
    'a transaction stayed idle longer than the idle_in_transaction_session_timeout of its connection: a transactional handler waited on something else for that long; shorten the handler or raise the timeout for the pool the store uses',
};

/** Wraps what went wrong in one operation, without anything that could hold a credential. */
export function storeError(
  operation: string,
  error: unknown,
  secrets: readonly string[],
  storeName: string,
): PostgresStoreError {
  if (error instanceof PostgresStoreError) return error;
  const failure = failureOf(error);
  const state = sqlStateOf(error);
  const detail = redact(messageOf(error), secrets);
  const hint = FAILURE_HINTS[failure] ?? (state && SQLSTATE_HINTS[state]);
  return new PostgresStoreError(
    operation,
    failure,
    `${storeName}.${operation} failed: ${DESCRIPTION[failure]} (${state ? `${state}: ` : ''}${detail})${hint ? `; ${hint}` : ''}`,
    state,
  );
}
