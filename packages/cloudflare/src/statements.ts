import { SESSION_COLUMNS, type SharedStatements, sharedStatements } from '@faceverify/shared-sql';
import { D1_DIALECT } from './dialect.js';

// The SQL of D1Store. D1 has no interactive transactions, so every decision a Store method
// makes is written into the statement that acts on it (a conditional UPDATE or an upsert with
// RETURNING), and a method that needs several statements sends them as one batch, which D1
// runs as one transaction. Parameters are numbered (?1, ?2, ...), as D1 supports them.

/** The statements D1 runs as PostgreSQL does (`@faceverify/shared-sql`). */
export const SHARED: SharedStatements = sharedStatements(D1_DIALECT);

// The statements below are D1's own: each is part of a batch that stands in for what
// PostgreSQL does in a transaction or with a row lock.

const RECORDS = D1_DIALECT.sessions;
const COLUMNS = SESSION_COLUMNS.join(', ');
const OPEN = "state IN ('pending', 'delivering')";
const openPurgeAt = (due: string) => D1_DIALECT.openPurgeAt('expires_at', due);

// ?1 user, ?2 now, ?3 the inserted key, ?4 how many open records may stay besides it.
// Nothing is displaced when the key is live: that insert changes nothing.
const DISPLACED = (columns: string) => `SELECT ${columns} FROM ${RECORDS}
WHERE external_user_id = ?1 AND ${OPEN} AND purge_at > ?2
  AND NOT EXISTS (SELECT 1 FROM ${RECORDS} WHERE key = ?3 AND purge_at > ?2)
ORDER BY created_at, key
LIMIT MAX(0, (SELECT COUNT(*) FROM ${RECORDS}
  WHERE external_user_id = ?1 AND ${OPEN} AND purge_at > ?2) - ?4)`;

/**
 * The user's oldest open records beyond the bound, as they are before being displaced. Not
 * shared: read before the insert in one batch, where PostgreSQL locks them after it.
 */
export const SELECT_DISPLACED: string = DISPLACED(COLUMNS);

/** ?1..?4 as SELECT_DISPLACED, ?5 how long a displaced record is kept. Same rows, closed. */
export const DISPLACE: string = `UPDATE ${RECORDS}
SET state = 'expired', lease_owner = NULL, lease_until = NULL, token = NULL, purge_at = ?2 + ?5
WHERE key IN (${DISPLACED('key')})`;

// A record leased to someone else keeps its due time (the lease end): its owner sees the
// result when it settles. Otherwise it is due at once.
const ATTACH_DUE = 'CASE WHEN lease_owner IS NOT NULL AND lease_until > ?3 THEN due_at ELSE ?3 END';

// ?2 the result, stored in an open record: from now on attempts count deliveries, not polls.
const RESULT_SET = `result = ?2,
  attempts = CASE WHEN state = 'pending' THEN 0 ELSE attempts END,
  state = 'delivering'`;

/** The record granted to `owner` until `end`, due at the lease end (contract 2). */
const granted = (owner: string, end: string) =>
  `lease_owner = ${owner}, lease_until = ${end}, due_at = ${end}, purge_at = ${openPurgeAt(end)}`;

/** No lease on the record at `now`: none, one that passed, or `owner`'s own. */
const freeFor = (owner: string, now: string) =>
  `(lease_owner IS NULL OR lease_until <= ${now} OR lease_owner = ${owner})`;

/**
 * ?1 key, ?2 result, ?3 now. Stores the first result of a live open record. Not shared:
 * PostgreSQL's locks the row NOWAIT and reports why it refused in the same statement.
 */
export const ATTACH: string = `UPDATE ${RECORDS} SET
  ${RESULT_SET},
  due_at = ${ATTACH_DUE},
  purge_at = ${openPurgeAt(ATTACH_DUE)}
WHERE key = ?1 AND purge_at > ?3 AND ${OPEN} AND result IS NULL
RETURNING key`;

/** ?1 key, ?2 now. What the record was when ATTACH did not apply, read in the same batch. */
export const ATTACH_REFUSAL: string = `SELECT state, result IS NOT NULL AS has_result FROM ${RECORDS}
WHERE key = ?1 AND purge_at > ?2`;

/**
 * ?1 key, ?2 result, ?3 now, ?4 owner, ?5 lease end. ATTACH and then LEASE in one statement,
 * for the case where both apply: a live open record without a result whose lease is free,
 * passed or the caller's. It ends as the two would leave it (due at the lease end). When it
 * does not apply, ATTACH alone may still (a lease held by another worker keeps the record).
 */
export const ATTACH_AND_LEASE: string = `UPDATE ${RECORDS} SET
  ${RESULT_SET},
  ${granted('?4', '?5')}
WHERE key = ?1 AND purge_at > ?3 AND ${OPEN} AND result IS NULL AND ${freeFor('?4', '?3')}
RETURNING ${COLUMNS}`;

/**
 * ?1 key, ?2 owner, ?3 now, ?4 lease end. Granted when the record is live and open and its
 * lease is free, passed, or already the caller's; it becomes due at the lease end. Not
 * shared: PostgreSQL's skips a record locked by a transactional handler (SKIP LOCKED).
 */
export const LEASE: string = `UPDATE ${RECORDS}
SET ${granted('?2', '?4')}
WHERE key = ?1 AND purge_at > ?3 AND ${OPEN} AND ${freeFor('?2', '?3')}
RETURNING ${COLUMNS}`;

// ?1 now, ?2 limit. The state term repeats the due index's own condition word for word: that
// is what lets SQLite use the partial index, so the cost follows the due records only.
const DUE = (columns: string) => `SELECT ${columns} FROM ${RECORDS}
WHERE ${OPEN} AND due_at <= ?1 AND purge_at > ?1 AND (lease_owner IS NULL OR lease_until <= ?1)
ORDER BY due_at LIMIT ?2`;

/**
 * The due records, earliest first: read in the batch before LEASE_DUE to order its result.
 * Not shared: PostgreSQL's takes them in one statement with SKIP LOCKED.
 */
export const SELECT_DUE: string = DUE('key, due_at');

/** ?1 now, ?2 limit, ?3 owner, ?4 lease end. Leases the same rows SELECT_DUE read. */
export const LEASE_DUE: string = `UPDATE ${RECORDS}
SET ${granted('?3', '?4')}
WHERE key IN (${DUE('key')})
RETURNING ${COLUMNS}`;

/**
 * ?1 now, ?2 at most this many. Deletes records past their purge time, oldest first. Not
 * shared: PostgreSQL's prunes both tables in one statement, skipping rows others hold.
 */
export const PURGE_RECORDS: string = `DELETE FROM ${RECORDS} WHERE key IN (
  SELECT key FROM ${RECORDS} WHERE purge_at <= ?1 ORDER BY purge_at LIMIT ?2)`;

/** ?1 now, ?2 at most this many. Deletes digests past their time. */
export const PURGE_DIGESTS: string = `DELETE FROM ${D1_DIALECT.digests} WHERE digest IN (
  SELECT digest FROM ${D1_DIALECT.digests} WHERE until <= ?1 ORDER BY until LIMIT ?2)`;
