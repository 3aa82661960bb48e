import { RECORD_COLUMNS } from './rows.js';

// The SQL of D1Store. D1 has no interactive transactions, so every decision a Store method
// makes is written into the statement that acts on it (a conditional UPDATE or an upsert with
// RETURNING), and a method that needs several statements sends them as one batch, which D1
// runs as one transaction. Parameters are numbered (?1, ?2, ...), as D1 supports them.

const RECORDS = 'faceverify_records';
const OPEN = "state IN ('pending', 'delivering')";

/** An open record may be dropped a day past both its expiry and its due time (contract 8). */
export const OPEN_RECORD_GRACE_MS = 86_400_000;

/** `purge_at` of an open record whose due time becomes `due` (an SQL expression). */
const openPurgeAt = (due: string) => `MAX(expires_at, ${due}) + ${OPEN_RECORD_GRACE_MS}`;

/** ?1 key, ?2 now. */
export const GET = `SELECT ${RECORD_COLUMNS} FROM ${RECORDS} WHERE key = ?1 AND purge_at > ?2`;

/**
 * ?1..?12 the columns, ?13 now. Inserts, or replaces a row past its purge time that was not
 * deleted yet; a live row with the key is left alone and nothing is returned.
 */
export const INSERT = `INSERT INTO ${RECORDS} (${RECORD_COLUMNS})
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
ON CONFLICT (key) DO UPDATE SET
  token = excluded.token, external_user_id = excluded.external_user_id,
  created_at = excluded.created_at, expires_at = excluded.expires_at, state = excluded.state,
  due_at = excluded.due_at, attempts = excluded.attempts, result = excluded.result,
  lease_owner = excluded.lease_owner, lease_until = excluded.lease_until,
  purge_at = excluded.purge_at
WHERE ${RECORDS}.purge_at <= ?13
RETURNING key`;

// ?1 user, ?2 now, ?3 the inserted key, ?4 how many open records may stay besides it.
// Nothing is displaced when the key is live: that insert changes nothing.
const DISPLACED = (columns: string) => `SELECT ${columns} FROM ${RECORDS}
WHERE external_user_id = ?1 AND ${OPEN} AND purge_at > ?2
  AND NOT EXISTS (SELECT 1 FROM ${RECORDS} WHERE key = ?3 AND purge_at > ?2)
ORDER BY created_at, key
LIMIT MAX(0, (SELECT COUNT(*) FROM ${RECORDS}
  WHERE external_user_id = ?1 AND ${OPEN} AND purge_at > ?2) - ?4)`;

/** The user's oldest open records beyond the bound, as they are before being displaced. */
export const SELECT_DISPLACED = DISPLACED(RECORD_COLUMNS);

/** ?1..?4 as SELECT_DISPLACED, ?5 how long a displaced record is kept. Same rows, closed. */
export const DISPLACE = `UPDATE ${RECORDS}
SET state = 'expired', lease_owner = NULL, lease_until = NULL, token = NULL, purge_at = ?2 + ?5
WHERE key IN (${DISPLACED('key')})`;

/** ?1 user, ?2 now, ?3 limit. Open records (oldest first), then closed ones kept longest. */
export const FIND_BY_USER = `SELECT ${RECORD_COLUMNS} FROM ${RECORDS}
WHERE external_user_id = ?1 AND purge_at > ?2
ORDER BY CASE WHEN ${OPEN} THEN 0 ELSE 1 END,
  CASE WHEN ${OPEN} THEN created_at ELSE -purge_at END, key
LIMIT ?3`;

/** ?1 digest, ?2 until, ?3 now. Returns the digest only for the first caller within its ttl. */
export const REMEMBER = `INSERT INTO faceverify_digests (digest, until) VALUES (?1, ?2)
ON CONFLICT (digest) DO UPDATE SET until = excluded.until
WHERE faceverify_digests.until <= ?3
RETURNING digest`;

/** ?1 digest. */
export const FORGET = 'DELETE FROM faceverify_digests WHERE digest = ?1';

// A record leased to someone else keeps its due time (the lease end): its owner sees the
// result when it settles. Otherwise it is due at once.
const ATTACH_DUE = 'CASE WHEN lease_owner IS NOT NULL AND lease_until > ?3 THEN due_at ELSE ?3 END';

/** ?1 key, ?2 result, ?3 now. Stores the first result of a live open record. */
export const ATTACH = `UPDATE ${RECORDS} SET
  result = ?2,
  attempts = CASE WHEN state = 'pending' THEN 0 ELSE attempts END,
  state = 'delivering',
  due_at = ${ATTACH_DUE},
  purge_at = ${openPurgeAt(ATTACH_DUE)}
WHERE key = ?1 AND purge_at > ?3 AND ${OPEN} AND result IS NULL
RETURNING key`;

/** ?1 key, ?2 now. What the record was when ATTACH did not apply, read in the same batch. */
export const ATTACH_REFUSAL = `SELECT state, result IS NOT NULL AS has_result FROM ${RECORDS}
WHERE key = ?1 AND purge_at > ?2`;

/**
 * ?1 key, ?2 owner, ?3 now, ?4 lease end. Granted when the record is live and open and its
 * lease is free, passed, or already the caller's; it becomes due at the lease end.
 */
export const LEASE = `UPDATE ${RECORDS}
SET lease_owner = ?2, lease_until = ?4, due_at = ?4, purge_at = ${openPurgeAt('?4')}
WHERE key = ?1 AND purge_at > ?3 AND ${OPEN}
  AND (lease_owner IS NULL OR lease_until <= ?3 OR lease_owner = ?2)
RETURNING ${RECORD_COLUMNS}`;

// ?1 now, ?2 limit. The state term repeats the due index's own condition word for word: that
// is what lets SQLite use the partial index, so the cost follows the due records only.
const DUE = (columns: string) => `SELECT ${columns} FROM ${RECORDS}
WHERE ${OPEN} AND due_at <= ?1 AND purge_at > ?1 AND (lease_owner IS NULL OR lease_until <= ?1)
ORDER BY due_at LIMIT ?2`;

/** The due records, earliest first: read in the batch before LEASE_DUE to order its result. */
export const SELECT_DUE = DUE('key, due_at');

/** ?1 now, ?2 limit, ?3 owner, ?4 lease end. Leases the same rows SELECT_DUE read. */
export const LEASE_DUE = `UPDATE ${RECORDS}
SET lease_owner = ?3, lease_until = ?4, due_at = ?4, purge_at = ${openPurgeAt('?4')}
WHERE key IN (${DUE('key')})
RETURNING ${RECORD_COLUMNS}`;

/** ?1 now, ?2 at most this many. Deletes records past their purge time, oldest first. */
export const PURGE_RECORDS = `DELETE FROM ${RECORDS} WHERE key IN (
  SELECT key FROM ${RECORDS} WHERE purge_at <= ?1 ORDER BY purge_at LIMIT ?2)`;

/** ?1 now, ?2 at most this many. Deletes digests past their time. */
export const PURGE_DIGESTS = `DELETE FROM faceverify_digests WHERE digest IN (
  SELECT digest FROM faceverify_digests WHERE until <= ?1 ORDER BY until LIMIT ?2)`;

// Settling `pending` on a record that has a result (attached meanwhile, or given now) keeps
// it: the record becomes `delivering`, due at once.
const KEEPS_RESULT = "?5 = 'pending' AND COALESCE(result, ?4) IS NOT NULL";
const SETTLED_DUE = `CASE WHEN ${KEEPS_RESULT} THEN ?3 ELSE ?6 END`;
const HELD_BY_OWNER = `key = ?1 AND lease_owner = ?2 AND purge_at > ?3 AND ${OPEN}`;

/** ?1 key, ?2 owner, ?3 now, ?4 result, ?5 state, ?6 due, ?7 attempts. Ends the lease. */
export const SETTLE_OPEN = `UPDATE ${RECORDS} SET
  result = COALESCE(result, ?4),
  state = CASE WHEN ${KEEPS_RESULT} THEN 'delivering' ELSE ?5 END,
  due_at = ${SETTLED_DUE},
  attempts = ?7,
  lease_owner = NULL, lease_until = NULL,
  purge_at = ${openPurgeAt(SETTLED_DUE)}
WHERE ${HELD_BY_OWNER}
RETURNING key`;

/**
 * ?1 key, ?2 owner, ?3 now, ?4 result, ?5 state, ?6 attempts or null, ?7 retention. Closing
 * drops the sealed token: nothing polls a closed record.
 */
export const SETTLE_CLOSED = `UPDATE ${RECORDS} SET
  result = COALESCE(result, ?4),
  state = ?5,
  attempts = COALESCE(?6, attempts),
  lease_owner = NULL, lease_until = NULL, token = NULL,
  purge_at = ?3 + ?7
WHERE ${HELD_BY_OWNER}
RETURNING key`;

/** ?1 now. */
export const COUNTS = `SELECT state, COUNT(*) AS count FROM ${RECORDS}
WHERE purge_at > ?1 GROUP BY state`;

/**
 * ?1 now, ?2 ?3 the position after which to list (retention end, key), ?4 limit. Dead letters
 * oldest first, read through the partial index on failed records alone.
 */
export const LIST_DEAD_LETTERS = `SELECT ${RECORD_COLUMNS} FROM ${RECORDS}
WHERE state = 'failed' AND purge_at > ?1 AND (purge_at > ?2 OR (purge_at = ?2 AND key > ?3))
ORDER BY purge_at, key LIMIT ?4`;

/**
 * ?1 key, ?2 now. Reopens a dead letter, due at once with its attempts reset; D1 runs one
 * statement at a time, so of concurrent calls the first applies and the rest find it open.
 */
export const REDELIVER_DEAD_LETTER = `UPDATE ${RECORDS} SET
  state = 'delivering', due_at = ?2, attempts = 0, lease_owner = NULL, lease_until = NULL,
  purge_at = ${openPurgeAt('?2')}
WHERE key = ?1 AND state = 'failed' AND purge_at > ?2
RETURNING key`;

/** ?1 key, ?2 now. Removes a dead letter. */
export const DISCARD_DEAD_LETTER = `DELETE FROM ${RECORDS}
WHERE key = ?1 AND state = 'failed' AND purge_at > ?2
RETURNING key`;

/** ?1 now. Open records due and not leased, through the due index (its condition verbatim). */
export const DUE_SUMMARY = `SELECT COUNT(*) AS due, MIN(due_at) AS oldest FROM ${RECORDS}
WHERE ${OPEN} AND due_at <= ?1 AND purge_at > ?1 AND (lease_owner IS NULL OR lease_until <= ?1)`;
