import {
  isOpen,
  type StoredResult,
  type TrackedSession,
  type TrackedState,
} from '@faceverify/core/store';
import { MalformedRowError } from './malformed-row-error.js';

/**
 * The columns a record is read from and inserted as, in this order. `purge_at` is not one of
 * them: each store keeps it its own way (see `SqlDialect.openPurgeAt`), and only the dead
 * letter listing reads it.
 */
export const SESSION_COLUMNS = [
  'key',
  'token',
  'external_user_id',
  'created_at',
  'expires_at',
  'state',
  'due_at',
  'attempts',
  'result',
  'lease_owner',
  'lease_until',
] as const;

/** `SESSION_COLUMNS` as a select list, each column qualified with the table's `alias`. */
export function sessionColumns(alias: string): string {
  return SESSION_COLUMNS.map((column) => `${alias}.${column}`).join(', ');
}

/**
 * A row as the driver returns it. Integer columns arrive as numbers (D1), strings
 * (node-postgres' int8) or bigints (PGlite's int8).
 */
export type SessionRow = Readonly<Record<string, unknown>>;

const STATES: readonly TrackedState[] = ['pending', 'delivering', 'completed', 'expired', 'failed'];

const isState = (value: unknown): value is TrackedState => STATES.some((state) => state === value);

// Milliseconds since the epoch and attempt counts fit a double exactly; anything that is not
// a whole number was not written by the store.
function wholeNumber(row: SessionRow, column: string): number {
  const value = row[column];
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'bigint' || (typeof value === 'string' && value !== '')
        ? Number(value)
        : Number.NaN;
  if (!Number.isSafeInteger(number)) throw new MalformedRowError(`${column} is not a whole number`);
  return number;
}

function text(row: SessionRow, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw new MalformedRowError(`${column} is not text`);
  return value;
}

function optionalText(row: SessionRow, column: string): string | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : text(row, column);
}

// The same message for text that is not JSON and JSON of another shape: either way the
// store did not write it, and the text itself (a user's result) is not repeated. A result is
// an object with a payload, or (as the Receiver writes it) with the whole result sealed in
// `sealed`, which only the Receiver opens.
function parseResult(value: string): StoredResult {
  try {
    const result = JSON.parse(value) as StoredResult & { sealed?: unknown };
    if (
      typeof result === 'object' &&
      result !== null &&
      (typeof result.payload === 'object' || typeof result.sealed === 'string')
    ) {
      return result;
    }
  } catch {
    // Reported below.
  }
  throw new MalformedRowError('a stored result is not valid JSON');
}

/**
 * The record a row of `SESSION_COLUMNS` holds. Throws `MalformedRowError` for a row the store
 * cannot have written, so a foreign row is reported instead of being handed to the Receiver.
 */
export function sessionFromRow(row: SessionRow): TrackedSession {
  const state = row.state;
  if (!isState(state)) throw new MalformedRowError(`unknown state "${String(state)}"`);
  const session: TrackedSession = {
    key: text(row, 'key'),
    externalUserId: text(row, 'external_user_id'),
    createdAt: wholeNumber(row, 'created_at'),
    expiresAt: wholeNumber(row, 'expires_at'),
    state,
    dueAt: wholeNumber(row, 'due_at'),
    attempts: wholeNumber(row, 'attempts'),
  };
  const token = optionalText(row, 'token');
  if (token !== undefined) session.token = token;
  const result = optionalText(row, 'result');
  if (result !== undefined) session.result = parseResult(result);
  const owner = optionalText(row, 'lease_owner');
  if (owner !== undefined) session.lease = { owner, until: wholeNumber(row, 'lease_until') };
  return session;
}

/**
 * A result as the `result` column holds it: the JSON text the application wrote (PostgreSQL's
 * jsonb would refuse `\u0000` and lone surrogates), or `null` for none.
 */
export function resultText(result: StoredResult | undefined): string | null {
  return result === undefined ? null : JSON.stringify(result);
}

/**
 * The values of `SESSION_COLUMNS` that insert `record`. A record inserted with a live lease
 * becomes due when the lease ends, as leasing would make it.
 */
export function sessionRowValues(record: TrackedSession): unknown[] {
  const dueAt = isOpen(record.state)
    ? Math.max(record.dueAt, record.lease?.until ?? 0)
    : record.dueAt;
  return [
    record.key,
    record.token ?? null,
    record.externalUserId,
    record.createdAt,
    record.expiresAt,
    record.state,
    dueAt,
    record.attempts,
    resultText(record.result),
    record.lease?.owner ?? null,
    record.lease?.until ?? null,
  ];
}
