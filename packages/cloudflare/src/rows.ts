import type { StoredResult, TrackedSession, TrackedState } from '@faceverify/core/store';
import { d1StoreError } from './errors.js';

/** A row of `faceverify_records`, as D1 returns it. */
export interface RecordRow {
  key: string;
  token: string | null;
  external_user_id: string;
  created_at: number;
  expires_at: number;
  state: string;
  due_at: number;
  attempts: number;
  result: string | null;
  lease_owner: string | null;
  lease_until: number | null;
  purge_at: number;
}

/** The columns every read returns, in the order of `RecordRow`. */
export const RECORD_COLUMNS =
  'key, token, external_user_id, created_at, expires_at, state, due_at, attempts, result, lease_owner, lease_until, purge_at';

const STATES: readonly TrackedState[] = ['pending', 'delivering', 'completed', 'expired', 'failed'];

function isState(value: string): value is TrackedState {
  return STATES.some((state) => state === value);
}

function parseResult(operation: string, text: string): StoredResult {
  try {
    const result = JSON.parse(text) as StoredResult;
    if (typeof result === 'object' && result !== null && typeof result.payload === 'object') {
      return result;
    }
  } catch {
    // Reported below with the same message as a JSON value of the wrong shape.
  }
  throw d1StoreError(operation, new Error('a stored result is not valid JSON'), 'malformed');
}

/** The record a row holds. */
export function recordFromRow(operation: string, row: RecordRow): TrackedSession {
  if (!isState(row.state)) {
    throw d1StoreError(operation, new Error(`unknown state "${row.state}"`), 'malformed');
  }
  return {
    key: row.key,
    ...(row.token !== null ? { token: row.token } : {}),
    externalUserId: row.external_user_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    state: row.state,
    dueAt: row.due_at,
    attempts: row.attempts,
    ...(row.result !== null ? { result: parseResult(operation, row.result) } : {}),
    ...(row.lease_owner !== null
      ? { lease: { owner: row.lease_owner, until: row.lease_until ?? 0 } }
      : {}),
  };
}

/** A result as stored in the `result` column, or `null` for none. */
export function resultColumn(result: StoredResult | undefined): string | null {
  return result === undefined ? null : JSON.stringify(result);
}
