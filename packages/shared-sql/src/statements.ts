import type { SqlDialect } from './dialect.js';
import { SESSION_COLUMNS, sessionColumns } from './session-row.js';

const OPEN = `('pending', 'delivering')`;

/** The statements PostgreSQL and D1 run alike, as `sharedStatements` builds them. */
export type SharedStatements = Readonly<
  Record<
    | 'insert'
    | 'get'
    | 'findByUser'
    | 'hasNewerSession'
    | 'remember'
    | 'forget'
    | 'settleOpen'
    | 'settleClosed'
    | 'listDeadLetters'
    | 'redeliverDeadLetter'
    | 'discardDeadLetter'
    | 'forgetUser'
    | 'dueSummary'
    | 'counts',
    string
  >
>;

/**
 * The statements whose text is the same on PostgreSQL and D1 but for the dialect's names,
 * parameters and `purge_at` of open records. Each decides in its own conditions, so it is
 * atomic alone on both: PostgreSQL's row lock on an UPDATE makes a concurrent one wait and
 * re-check its conditions, and D1 runs one statement at a time. The statements that differ
 * (row and advisory locks on PostgreSQL, batches on D1) stay with each store.
 */
export function sharedStatements(dialect: SqlDialect): SharedStatements {
  const { sessions, digests, liveUntil } = dialect;
  const sql = (text: string) => dialect.placeholders(text);
  const s = sessionColumns('s');
  const live = (now: string) => `s.${liveUntil} > ${now}`;
  // Settling `pending` on a record that has a result (attached meanwhile, or given now) keeps
  // it: the record becomes `delivering`, due at once.
  const keepsResult = `$5::text = 'pending' AND COALESCE(s.result, $4::text) IS NOT NULL`;
  const settledDue = `CASE WHEN ${keepsResult} THEN $3::bigint ELSE $6::bigint END`;
  const heldByOwner = `s.key = $1::text AND s.lease_owner = $2::text AND s.state IN ${OPEN}
      AND ${live('$3::bigint')}`;
  return {
    /**
     * `$1`..`$11` the record's `SESSION_COLUMNS`, `$12` now. Inserts, or replaces a row past
     * its time that was not deleted yet; a live row with the key is left alone and nothing
     * is returned.
     */
    insert: sql(`INSERT INTO ${sessions} AS s (${SESSION_COLUMNS.join(', ')}, purge_at)
      VALUES ($1::text, $2::text, $3::text, $4::bigint, $5::bigint, $6::text, $7::bigint,
        $8::integer, $9::text, $10::text, $11::bigint,
        ${dialect.openPurgeAt('$5::bigint', '$7::bigint')})
      ON CONFLICT (key) DO UPDATE SET ${SESSION_COLUMNS.slice(1)
        .map((column) => `${column} = EXCLUDED.${column}`)
        .join(', ')}, purge_at = EXCLUDED.purge_at
      WHERE s.${liveUntil} <= $12::bigint
      RETURNING key`),
    /** `$1` key, `$2` now. */
    get: sql(`SELECT ${s} FROM ${sessions} s WHERE s.key = $1::text AND ${live('$2::bigint')}`),
    /** `$1` user, `$2` now, `$3` limit. Open records (oldest first), then the closed ones kept longest. */
    findByUser: sql(`SELECT ${s} FROM ${sessions} s
      WHERE s.external_user_id = $1::text AND ${live('$2::bigint')}
      ORDER BY CASE WHEN s.state IN ${OPEN} THEN 0 ELSE 1 END,
        CASE WHEN s.state IN ${OPEN} THEN s.created_at ELSE -s.purge_at END, s.created_at, s.key
      LIMIT $3::integer`),
    /**
     * `$1` users (a list, see `SqlDialect.inList`), `$2` created after, `$3` now. One row when
     * a live record of one of them was created later and is a session's: a delivery matched to
     * no session (`webhook:<digest>`, see core's record-keys.ts) has no start to compare.
     */
    hasNewerSession: sql(`SELECT 1 FROM ${sessions} s
      WHERE ${dialect.inList('s.external_user_id', 1)} AND s.created_at > $2::bigint
        AND ${live('$3::bigint')} AND substr(s.key, 1, 8) <> 'webhook:'
      LIMIT 1`),
    /** `$1` digest, `$2` until, `$3` now. Returns the digest only for the first caller within its ttl. */
    remember: sql(`INSERT INTO ${digests} AS d (digest, until) VALUES ($1::text, $2::bigint)
      ON CONFLICT (digest) DO UPDATE SET until = EXCLUDED.until WHERE d.until <= $3::bigint
      RETURNING digest`),
    /** `$1` digest. */
    forget: sql(`DELETE FROM ${digests} WHERE digest = $1::text`),
    /**
     * `$1` key, `$2` owner, `$3` now, `$4` result, `$5` state, `$6` due, `$7` attempts. Writes
     * leased work's outcome to a record that stays open, and ends the lease. A result given
     * with `delivering` replaces the record's (the owner's, as it will deliver it again); with
     * `pending` it is kept only when the record had none.
     */
    settleOpen: sql(`UPDATE ${sessions} AS s SET
        result = CASE WHEN $5::text = 'pending' THEN COALESCE(s.result, $4::text)
          ELSE COALESCE($4::text, s.result) END,
        state = CASE WHEN ${keepsResult} THEN 'delivering' ELSE $5::text END,
        due_at = ${settledDue},
        attempts = $7::integer,
        lease_owner = NULL, lease_until = NULL,
        purge_at = ${dialect.openPurgeAt('s.expires_at', settledDue)}
      WHERE ${heldByOwner}
      RETURNING key`),
    /**
     * `$1` key, `$2` owner, `$3` now, `$4` result, `$5` state, `$6` attempts or null, `$7`
     * retention. Closes the record and ends the lease. Closing drops the sealed token:
     * nothing polls a closed record. A result given replaces the record's: what was delivered.
     */
    settleClosed: sql(`UPDATE ${sessions} AS s SET
        result = COALESCE($4::text, s.result),
        state = $5::text,
        attempts = COALESCE($6::integer, s.attempts),
        lease_owner = NULL, lease_until = NULL, token = NULL,
        purge_at = $3::bigint + $7::bigint
      WHERE ${heldByOwner}
      RETURNING key`),
    /**
     * `$1` now, `$2` `$3` the position after which to list (retention end, key), `$4` limit.
     * Dead letters oldest first, read through the partial index on failed records alone; the
     * row comparison is a range of that index on both databases.
     */
    listDeadLetters: sql(`SELECT ${s}, s.purge_at FROM ${sessions} s
      WHERE s.state = 'failed' AND s.purge_at > $1::bigint
        AND (s.purge_at, s.key) > ($2::bigint, $3::text)
      ORDER BY s.purge_at, s.key LIMIT $4::integer`),
    /**
     * `$1` key, `$2` now. Reopens a dead letter, due at once with its attempts reset. Of
     * concurrent calls one applies and the rest find it open: PostgreSQL's row lock makes
     * them wait and re-check, D1 runs them one after the other.
     */
    redeliverDeadLetter: sql(`UPDATE ${sessions} AS s SET state = 'delivering',
        due_at = $2::bigint, attempts = 0, lease_owner = NULL, lease_until = NULL,
        purge_at = ${dialect.openPurgeAt('s.expires_at', '$2::bigint')}
      WHERE s.key = $1::text AND s.state = 'failed' AND ${live('$2::bigint')}
      RETURNING key`),
    /** `$1` key, `$2` now. Removes a dead letter. */
    discardDeadLetter: sql(`DELETE FROM ${sessions} AS s
      WHERE s.key = $1::text AND s.state = 'failed' AND ${live('$2::bigint')}
      RETURNING key`),
    /**
     * `$1` user, `$2` now. Erasure: deletes every row of the user, in every state, in one
     * statement (the user index finds them), and returns for each whether it was still live,
     * so the count leaves out rows only the retention step had not deleted yet. PostgreSQL
     * waits for a row a transaction holds (a transactional handler's delivery) and deletes it
     * once that commits; D1 runs one statement at a time.
     */
    forgetUser: sql(`DELETE FROM ${sessions} AS s WHERE s.external_user_id = $1::text
      RETURNING CASE WHEN ${liveUntil} > $2::bigint THEN 1 ELSE 0 END AS live`),
    /**
     * `$1` now. Open records due and not leased. The state term repeats the due index's own
     * condition word for word: that is what lets SQLite use the partial index, and on both
     * databases the cost follows the due records only.
     */
    dueSummary: sql(`SELECT COUNT(*) AS due, MIN(s.due_at) AS oldest FROM ${sessions} s
      WHERE s.state IN ${OPEN} AND s.due_at <= $1::bigint AND ${live('$1::bigint')}
        AND (s.lease_until IS NULL OR s.lease_until <= $1::bigint)`),
    /** `$1` now. Live records by state. */
    counts: sql(`SELECT s.state, COUNT(*) AS n FROM ${sessions} s
      WHERE ${live('$1::bigint')} GROUP BY s.state`),
  };
}
