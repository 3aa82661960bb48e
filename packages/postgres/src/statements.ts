import { type SharedStatements, sessionColumns, sharedStatements } from '@faceverify/shared-sql';
import { postgresDialect } from './dialect.js';
import type { TableNames } from './names.js';

const OPEN = `('pending', 'delivering')`;

/** Every statement of the store, built once per table names. */
export type Statements = SharedStatements &
  Readonly<
    Record<
      'lockUser' | 'displace' | 'attachResult' | 'attachAndLease' | 'lease' | 'leaseDue' | 'prune',
      string
    >
  >;

/**
 * The shared statements (`@faceverify/shared-sql`) and those only PostgreSQL runs: each of
 * these takes a row lock (FOR UPDATE, NOWAIT, SKIP LOCKED) or an advisory lock, which D1 has
 * no equivalent of.
 */
export function statements(names: TableNames): Statements {
  const { sessions, digests } = names;
  const s = sessionColumns('s');
  // A lease `$4` may take at `$3`: none, passed, or its own (the row as it was before).
  const free = `(t.lease_owner IS NULL OR t.lease_until <= $3::bigint OR t.lease_owner = $4::text)`;
  // Built once per store, not per request (per-request-literals.test.ts).
  return {
    ...sharedStatements(postgresDialect(names)),
    /** Serialises inserts of one user for the rest of the transaction (an advisory lock). */
    lockUser: 'SELECT pg_advisory_xact_lock(hashtext($1::text), hashtext($2::text))',
    /**
     * Closes the user's open records beyond the `$4` newest (the new one excluded), after the
     * insert in its transaction, locking them. Not shared: D1 has no such transaction, so it
     * reads and closes them before the insert, in one batch.
     */
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
    /**
     * Locks the record, attaches the result when it is open without one, and reports what
     * it found, in one statement. A leased record stays due at its lease's end. NOWAIT: a
     * record locked by a delivery's transaction (a transactional handler, for minutes) is
     * answered at once with 55P03, never waited on while holding a pooled connection. Not
     * shared: D1 has no row locks, and reads why it refused in the same batch instead.
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
     * `attachResult` and, when it attached, `lease` to `$4` until `$5`, in one statement: the
     * record is locked as `attachResult` locks it (NOWAIT), and granted in the same UPDATE when
     * its lease is free, passed or `$4`'s. Returns what it found (`found_state`, `has_result`)
     * and, when it attached, the record as written (`key` not null) and whether it is `leased`.
     * Not shared: D1 has no row locks.
     */
    attachAndLease: `WITH target AS (
        SELECT s.key, s.state, s.result IS NOT NULL AS has_result FROM ${sessions} s
        WHERE s.key = $1::text AND s.drop_at > $3::bigint FOR UPDATE NOWAIT
      ), attached AS (
        UPDATE ${sessions} t SET result = $2::text, state = 'delivering',
          attempts = CASE WHEN t.state = 'pending' THEN 0 ELSE t.attempts END,
          lease_owner = CASE WHEN ${free} THEN $4::text ELSE t.lease_owner END,
          lease_until = CASE WHEN ${free} THEN $5::bigint ELSE t.lease_until END,
          due_at = CASE WHEN ${free} THEN $5::bigint
            WHEN t.lease_until > $3::bigint THEN t.due_at ELSE $3::bigint END
        WHERE t.key = $1::text
          AND (SELECT target.state IN ${OPEN} AND NOT target.has_result FROM target)
        RETURNING ${sessionColumns('t')}, t.lease_owner = $4::text AS leased
      )
      SELECT target.state AS found_state, target.has_result, attached.*
      FROM target LEFT JOIN attached ON true`,
    /**
     * Grants an open record that is free, or whose lease passed, or that `$2` holds. A record
     * locked by a transaction (`settleWith` running a transactional handler) is not granted,
     * not even to its holder: that open transaction is the lease, and waiting on its lock
     * would hold a pooled connection for as long as the handler runs. Not shared for that
     * SKIP LOCKED alone: D1's is the plain conditional UPDATE.
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
     * The granted rows are found by key (`= ANY`), never by joining the whole table. Not
     * shared: D1 has no SKIP LOCKED and reads the due order in the same batch.
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
    /**
     * Deletes up to `$2` records and digests whose time is over, oldest first. Not shared:
     * SKIP LOCKED keeps concurrent sweepers apart; D1 runs its two DELETEs in leaseDue's batch.
     */
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
