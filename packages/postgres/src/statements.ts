import type { TableNames } from './names.js';

const OPEN = `('pending', 'delivering')`;

/** The columns a record is read from, in `rows.ts`. */
const COLUMNS = [
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

const columnsOf = (table: string) => COLUMNS.map((column) => `${table}.${column}`).join(', ');

/** Every statement of the store, built once per table names. Parameters are cast: PGlite and
 * node-postgres both send them as text. */
export type Statements = ReturnType<typeof statements>;

export function statements({ sessions, digests }: TableNames) {
  const s = columnsOf('s');
  const values = `$1::text, $2::text, $3::text, $4::bigint, $5::bigint, $6::text, $7::bigint,
    $8::integer, $9::text, $10::text, $11::bigint`;
  return {
    /** Inserts a record unless a live one has its key; a row past its `drop_at` is replaced. */
    insert: `INSERT INTO ${sessions} AS s (${COLUMNS.join(', ')}, purge_at)
      VALUES (${values}, NULL)
      ON CONFLICT (key) DO UPDATE SET ${COLUMNS.slice(1)
        .map((column) => `${column} = EXCLUDED.${column}`)
        .join(', ')}, purge_at = NULL
      WHERE s.drop_at <= $12::bigint
      RETURNING s.key`,
    /** Serialises inserts of one user for the rest of the transaction. */
    lockUser: 'SELECT pg_advisory_xact_lock(hashtext($1::text), hashtext($2::text))',
    /** Closes the user's open records beyond the `$4` newest (the new one excluded). */
    displace: `WITH old AS (
        SELECT ${s} FROM ${sessions} s
        WHERE s.external_user_id = $1::text AND s.key <> $2::text AND s.state IN ${OPEN}
          AND s.drop_at > $3::bigint
        ORDER BY s.created_at DESC, s.key DESC OFFSET $4::integer FOR UPDATE
      )
      , closed AS (
        UPDATE ${sessions} t SET state = 'expired', lease_owner = NULL, lease_until = NULL,
          token = NULL, purge_at = $3::bigint + $5::bigint
        WHERE t.key = ANY (ARRAY(SELECT old.key FROM old))
        RETURNING t.key
      )
      SELECT old.* FROM old JOIN closed ON closed.key = old.key`,
    get: `SELECT ${s} FROM ${sessions} s WHERE s.key = $1::text AND s.drop_at > $2::bigint`,
    findByUser: `SELECT ${s} FROM ${sessions} s
      WHERE s.external_user_id = $1::text AND s.drop_at > $2::bigint
      ORDER BY (s.state IN ${OPEN}) DESC, s.purge_at DESC NULLS FIRST, s.created_at, s.key
      LIMIT $3::integer`,
    /** Returns a row only for the first caller within the digest's ttl. */
    remember: `INSERT INTO ${digests} AS d (digest, until) VALUES ($1::text, $2::bigint)
      ON CONFLICT (digest) DO UPDATE SET until = EXCLUDED.until WHERE d.until <= $3::bigint
      RETURNING d.digest`,
    forget: `DELETE FROM ${digests} WHERE digest = $1::text`,
    /**
     * Locks the record, attaches the result when it is open without one, and reports what
     * it found, in one statement. A leased record stays due at its lease's end. NOWAIT: a
     * record locked by a delivery's transaction (a transactional handler, for minutes) is
     * answered at once with 55P03, never waited on while holding a pooled connection.
     */
    attachResult: `WITH target AS (
        SELECT s.key, s.state, s.result IS NOT NULL AS has_result FROM ${sessions} s
        WHERE s.key = $1::text AND s.drop_at > $3::bigint FOR UPDATE NOWAIT
      ), attached AS (
        UPDATE ${sessions} t SET result = $2::text, state = 'delivering',
          attempts = CASE WHEN t.state = 'pending' THEN 0 ELSE t.attempts END,
          due_at = CASE WHEN t.lease_until > $3::bigint THEN t.due_at ELSE $3::bigint END
        WHERE t.key = $1::text
          AND (SELECT target.state IN ${OPEN} AND NOT target.has_result FROM target)
        RETURNING t.key
      )
      SELECT target.state, target.has_result, EXISTS (SELECT 1 FROM attached) AS attached
      FROM target`,
    /**
     * Grants an open record that is free, or whose lease passed, or that `$2` holds. A record
     * locked by a transaction (`settleWith` running a transactional handler) is not granted,
     * not even to its holder: that open transaction is the lease, and waiting on its lock
     * would hold a pooled connection for as long as the handler runs.
     */
    lease: `WITH target AS (
        SELECT s.key FROM ${sessions} s
        WHERE s.key = $1::text AND s.state IN ${OPEN} AND s.drop_at > $4::bigint
          AND (s.lease_owner IS NULL OR s.lease_until <= $4::bigint OR s.lease_owner = $2::text)
        FOR UPDATE SKIP LOCKED
      )
      UPDATE ${sessions} s SET lease_owner = $2::text, lease_until = $3::bigint,
        due_at = $3::bigint
      WHERE s.key = ANY (ARRAY(SELECT target.key FROM target))
      RETURNING ${s}`,
    /**
     * Leases the earliest due open records. The partial index on open records' due time
     * makes this read only due rows; SKIP LOCKED lets concurrent sweepers take disjoint ones.
     * The granted rows are found by key (`= ANY`), never by joining the whole table.
     */
    leaseDue: `WITH due AS (
        SELECT s.key, s.due_at FROM ${sessions} s
        WHERE s.state IN ${OPEN} AND s.due_at <= $1::bigint AND s.drop_at > $1::bigint
          AND (s.lease_until IS NULL OR s.lease_until <= $1::bigint)
        ORDER BY s.due_at LIMIT $2::integer FOR UPDATE SKIP LOCKED
      )
      , granted AS (
        UPDATE ${sessions} s SET lease_owner = $3::text, lease_until = $4::bigint,
          due_at = $4::bigint
        WHERE s.key = ANY (ARRAY(SELECT due.key FROM due))
        RETURNING ${s}
      )
      SELECT granted.* FROM granted JOIN due ON due.key = granted.key
      ORDER BY due.due_at, due.key`,
    /** Locks a record for `settleWith`, when `$2` holds its lease. */
    lockLeased: `SELECT s.key FROM ${sessions} s
      WHERE s.key = $1::text AND s.lease_owner = $2::text AND s.state IN ${OPEN}
        AND s.drop_at > $3::bigint
      FOR UPDATE`,
    /**
     * Writes leased work's outcome and ends the lease. Settling `pending` on a record that
     * has a result (attached meanwhile, or given now) makes it `delivering`, due at once.
     * Closing drops the sealed token: nothing polls a closed record.
     */
    settle: `UPDATE ${sessions} s SET lease_owner = NULL, lease_until = NULL,
        token = CASE WHEN $5::boolean THEN NULL ELSE s.token END,
        result = COALESCE(s.result, $6::text),
        attempts = COALESCE($7::integer, s.attempts),
        state = CASE WHEN $4::text = 'pending' AND COALESCE(s.result, $6::text) IS NOT NULL
          THEN 'delivering' ELSE $4::text END,
        due_at = CASE WHEN $5::boolean THEN s.due_at
          WHEN $4::text = 'pending' AND COALESCE(s.result, $6::text) IS NOT NULL THEN $3::bigint
          ELSE $8::bigint END,
        purge_at = CASE WHEN $5::boolean THEN $3::bigint + $9::bigint ELSE NULL END
      WHERE s.key = $1::text AND s.lease_owner = $2::text AND s.state IN ${OPEN}
        AND s.drop_at > $3::bigint
      RETURNING s.key`,
    /**
     * Dead letters after the position (`$2` retention end, `$3` key), oldest first, read
     * through the partial index on failed records alone.
     */
    listDeadLetters: `SELECT ${s}, s.purge_at FROM ${sessions} s
      WHERE s.state = 'failed' AND s.purge_at > $1::bigint
        AND (s.purge_at, s.key) > ($2::bigint, $3::text)
      ORDER BY s.purge_at, s.key LIMIT $4::integer`,
    /**
     * Reopens a dead letter: the row lock makes a concurrent call wait and then find it no
     * longer `failed`, so exactly one applies.
     */
    redeliverDeadLetter: `UPDATE ${sessions} s SET state = 'delivering', due_at = $2::bigint,
        attempts = 0, purge_at = NULL, lease_owner = NULL, lease_until = NULL
      WHERE s.key = $1::text AND s.state = 'failed' AND s.drop_at > $2::bigint
      RETURNING s.key`,
    discardDeadLetter: `DELETE FROM ${sessions} s
      WHERE s.key = $1::text AND s.state = 'failed' AND s.drop_at > $2::bigint
      RETURNING s.key`,
    /** Open records due and not leased, read through the partial index on due times. */
    dueSummary: `SELECT count(*)::integer AS due, min(s.due_at) AS oldest FROM ${sessions} s
      WHERE s.state IN ${OPEN} AND s.due_at <= $1::bigint AND s.drop_at > $1::bigint
        AND (s.lease_until IS NULL OR s.lease_until <= $1::bigint)`,
    counts: `SELECT s.state, count(*)::integer AS n FROM ${sessions} s
      WHERE s.drop_at > $1::bigint GROUP BY s.state`,
    /** Deletes up to `$2` records and digests whose time is over, oldest first. */
    prune: `WITH gone_sessions AS (
        SELECT s.key FROM ${sessions} s WHERE s.drop_at <= $1::bigint
        ORDER BY s.drop_at LIMIT $2::integer FOR UPDATE SKIP LOCKED
      ), deleted_sessions AS (
        DELETE FROM ${sessions} s WHERE s.key = ANY (ARRAY(SELECT g.key FROM gone_sessions g))
        RETURNING 1
      ), gone_digests AS (
        SELECT d.digest FROM ${digests} d WHERE d.until <= $1::bigint
        ORDER BY d.until LIMIT $2::integer FOR UPDATE SKIP LOCKED
      ), deleted_digests AS (
        DELETE FROM ${digests} d
        WHERE d.digest = ANY (ARRAY(SELECT g.digest FROM gone_digests g)) RETURNING 1
      )
      SELECT (SELECT count(*) FROM deleted_sessions)::integer AS sessions,
        (SELECT count(*) FROM deleted_digests)::integer AS digests`,
  };
}
