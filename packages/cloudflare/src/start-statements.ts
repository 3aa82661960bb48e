import { SESSION_COLUMNS, startStatements } from '@faceverify/shared-sql';
import { D1_DIALECT } from './dialect.js';

// The SQL of D1Store's starts (Store contract rule 13). A claim reads, checks and writes
// several rows, which PostgreSQL does under row locks in a function; D1 runs a batch as one
// transaction, alone, so a claim is one batch: what it reads first is what its writes find,
// and each write carries the whole decision in its own conditions. Parameters are numbered.

const STARTS = 'faceverify_starts';
const COUNTS = 'faceverify_start_counts';

/** The start statements D1 runs as PostgreSQL does (`@faceverify/shared-sql`). */
export const SHARED_STARTS = startStatements({ starts: STARTS, startCounts: COUNTS }, D1_DIALECT);

/** ?1 start, ?2 now. The start's claim, read first in a claim's batch. */
export const SELECT_START: string = `SELECT owner, claim_until FROM ${STARTS}
WHERE start_key = ?1 AND claim_until > ?2`;

// ?1 start, ?4 now, ?6 the expiry a reused record must reach (NULL: never reused). The record
// the start names, while it may be handed out again.
const REUSABLE = (columns: string) => `SELECT ${columns} FROM ${STARTS} st
JOIN ${D1_DIALECT.sessions} r ON r.key = st.record_key
WHERE st.start_key = ?1 AND ?6 IS NOT NULL AND r.state = 'pending' AND r.expires_at >= ?6
  AND r.purge_at > ?4`;

/** ?1..?6 as CLAIM_START. The record to hand out again, read first in a claim's batch. */
export const SELECT_REUSABLE: string = REUSABLE(SESSION_COLUMNS.map((c) => `r.${c}`).join(', '));

// ?7 the counters as JSON ([{key, limit, readOnly, ttlMs}]), each `j.value`.
const counter = (field: string) => `json_extract(j.value, '$.${field}')`;

/** ?1 counters, ?2 now. Each counter's count at now, in the counters' order. */
export const SELECT_START_COUNTS: string = `SELECT COALESCE(n.count, 0) AS count
FROM json_each(?1) j LEFT JOIN ${COUNTS} n ON n.counter_key = ${counter('key')} AND n.until > ?2
ORDER BY j.key`;

// ?1 start, ?3 owner, ?4 now, ?6 as REUSABLE, ?7 counters. Whether the claim is granted: the
// record cannot be handed out again, no other owner's claim holds, and no counter counted is
// at its limit. CLAIM_START and then COUNT_START test it in turn: the first changes none of
// its terms but another owner's claim, which it grants only when that claim does not hold.
const GRANTED = `NOT EXISTS (${REUSABLE('1')})
  AND NOT EXISTS (SELECT 1 FROM ${STARTS} WHERE start_key = ?1 AND owner IS NOT NULL
    AND owner <> ?3 AND claim_until > ?4)
  AND NOT EXISTS (SELECT 1 FROM json_each(?7) j
    LEFT JOIN ${COUNTS} n ON n.counter_key = ${counter('key')} AND n.until > ?4
    WHERE ${counter('readOnly')} = 0 AND ${counter('limit')} IS NOT NULL
      AND COALESCE(n.count, 0) >= ${counter('limit')})`;

/**
 * ?1 start, ?2 user, ?3 owner, ?4 now, ?5 claim end, ?6 as REUSABLE, ?7 counters. Grants the
 * claim: the start's row names `?3` until `?5`, kept at least that long.
 */
export const CLAIM_START: string = `INSERT INTO ${STARTS}
  (start_key, external_user_id, owner, claim_until, drop_at)
SELECT ?1, ?2, ?3, ?5, ?5 WHERE ${GRANTED}
ON CONFLICT (start_key) DO UPDATE SET external_user_id = excluded.external_user_id,
  owner = excluded.owner, claim_until = excluded.claim_until,
  drop_at = MAX(drop_at, excluded.drop_at)`;

/**
 * ?1..?7 as CLAIM_START, after it in the same batch. Counts each counter not read only once,
 * when the claim was granted: a count past its period starts again at 1, until ?4 + its ttl.
 */
export const COUNT_START: string = `INSERT INTO ${COUNTS} (counter_key, count, until)
SELECT ${counter('key')}, 1, ?4 + ${counter('ttlMs')} FROM json_each(?7) j
WHERE ${counter('readOnly')} = 0 AND ${GRANTED}
ON CONFLICT (counter_key) DO UPDATE SET
  count = CASE WHEN until > ?4 THEN count + 1 ELSE 1 END,
  until = CASE WHEN until > ?4 THEN until ELSE excluded.until END`;

/**
 * ?1 start, ?2 user, ?3 record key, ?4 its expiry, ?5 the claim's owner. Right after the
 * insert in its batch, and only when it inserted (`changes()`): the start names the record,
 * and the owner's claim ends (another owner's, that took it over, is left).
 */
export const INSERT_STARTED: string = `INSERT INTO ${STARTS}
  (start_key, external_user_id, record_key, record_expires_at, drop_at)
SELECT ?1, ?2, ?3, ?4, ?4 WHERE changes() > 0
ON CONFLICT (start_key) DO UPDATE SET external_user_id = excluded.external_user_id,
  record_key = excluded.record_key, record_expires_at = excluded.record_expires_at,
  owner = CASE WHEN owner <> ?5 THEN owner END,
  claim_until = CASE WHEN owner <> ?5 THEN claim_until END,
  drop_at = MAX(excluded.drop_at, COALESCE(CASE WHEN owner <> ?5 THEN claim_until END, 0))`;

/** ?1 now, ?2 at most this many. Deletes starts past their time, oldest first. */
export const PURGE_STARTS: string = `DELETE FROM ${STARTS} WHERE start_key IN (
  SELECT start_key FROM ${STARTS} WHERE drop_at <= ?1 ORDER BY drop_at LIMIT ?2)`;

/** ?1 now, ?2 at most this many. Deletes counts past their period. */
export const PURGE_START_COUNTS: string = `DELETE FROM ${COUNTS} WHERE counter_key IN (
  SELECT counter_key FROM ${COUNTS} WHERE until <= ?1 ORDER BY until LIMIT ?2)`;
