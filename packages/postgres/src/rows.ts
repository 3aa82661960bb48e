import type { StoredResult, TrackedSession, TrackedState } from '@faceverify/core/store';
import type { Row } from './sql-database.js';

// int8 columns arrive as strings (node-postgres) or bigints (PGlite); milliseconds since
// the epoch fit a double exactly.
const number = (value: unknown) => Number(value);

const json = (value: unknown): StoredResult =>
  (typeof value === 'string' ? JSON.parse(value) : value) as StoredResult;

/** A record as the Store interface returns it, from a row of `statements.ts`' columns. */
export function sessionOf(row: Row): TrackedSession {
  const session: TrackedSession = {
    key: row.key as string,
    externalUserId: row.external_user_id as string,
    createdAt: number(row.created_at),
    expiresAt: number(row.expires_at),
    state: row.state as TrackedState,
    dueAt: number(row.due_at),
    attempts: number(row.attempts),
  };
  if (row.token !== null && row.token !== undefined) session.token = row.token as string;
  if (row.result !== null && row.result !== undefined) session.result = json(row.result);
  if (row.lease_owner !== null && row.lease_owner !== undefined) {
    session.lease = { owner: row.lease_owner as string, until: number(row.lease_until) };
  }
  return session;
}
