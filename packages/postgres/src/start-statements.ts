import { type StartStatements, startStatements } from '@faceverify/shared-sql';
import { postgresDialect } from './dialect.js';
import type { TableNames } from './names.js';

/** The statements on starts (Store contract rule 13), built once per table names. */
export type PostgresStartStatements = StartStatements &
  Readonly<Record<'claimStart' | 'pruneStarts', string>> & {
    /** `insert` (its text as given, `$1`..`$12`) ending the claim of start `$13` by `$14`. */
    insertStarted(insert: string): string;
    /** `forgetUser` (its text as given, `$1` the user) removing the user's starts too. */
    forgetUserAndStarts(forgetUser: string): string;
  };

/**
 * The start statements shared with D1 (`@faceverify/shared-sql`) and PostgreSQL's own: the
 * claim is one call of the function migration 0004 creates (its locks and decisions in one
 * round trip), and the insert and the erasure carry the start's row in the same statement as
 * the record's, so each stays one atomic statement.
 */
export function postgresStartStatements(names: TableNames): PostgresStartStatements {
  const { starts, startCounts, claimStart } = names;
  // The start's claim is left to another owner that took it over (its claim lapsed first).
  const otherOwner = (value: string) => `CASE WHEN t.owner <> $14::text THEN ${value} END`;
  return Object.assign({}, startStatements(names, postgresDialect(names)), {
    /**
     * `$1` start, `$2` user, `$3` owner, `$4` now, `$5` claim end, `$6` now plus the life a
     * reused session must have left (null: never reused), `$7` the counters as JSON.
     */
    claimStart: `SELECT c.claim, c.claim_until, c.counter, c.counts, c.found_record
      FROM ${claimStart}($1::text, $2::text, $3::text, $4::bigint, $5::bigint, $6::bigint,
        $7::jsonb) c`,
    insertStarted: (insert: string) => `WITH inserted AS (${insert}),
      started AS (
        INSERT INTO ${starts} AS t (start_key, external_user_id, record_key, record_expires_at,
          drop_at)
        SELECT $13::text, $3::text, inserted.key, $5::bigint, $5::bigint FROM inserted
        ON CONFLICT (start_key) DO UPDATE SET external_user_id = EXCLUDED.external_user_id,
          record_key = EXCLUDED.record_key, record_expires_at = EXCLUDED.record_expires_at,
          owner = ${otherOwner('t.owner')}, claim_until = ${otherOwner('t.claim_until')},
          drop_at = GREATEST(EXCLUDED.drop_at, ${otherOwner('t.claim_until')})
      )
      SELECT inserted.key FROM inserted`,
    forgetUserAndStarts: (forgetUser: string) =>
      `WITH forgotten_starts AS (DELETE FROM ${starts} WHERE external_user_id = $1::text)
      ${forgetUser}`,
    /**
     * `$1` now, `$2` at most this many of each. Deletes starts whose claim lapsed and whose
     * session can no longer be handed out, and counts past their period, oldest first,
     * skipping rows a claim holds.
     */
    pruneStarts: `WITH gone_starts AS (
        SELECT t.start_key FROM ${starts} t WHERE t.drop_at <= $1::bigint
        ORDER BY t.drop_at LIMIT $2::integer FOR UPDATE SKIP LOCKED
      ), deleted_starts AS (
        DELETE FROM ${starts} t
        WHERE t.start_key = ANY (ARRAY(SELECT g.start_key FROM gone_starts g)) RETURNING 1
      ), gone_counts AS (
        SELECT n.counter_key FROM ${startCounts} n WHERE n.until <= $1::bigint
        ORDER BY n.until LIMIT $2::integer FOR UPDATE SKIP LOCKED
      ), deleted_counts AS (
        DELETE FROM ${startCounts} n
        WHERE n.counter_key = ANY (ARRAY(SELECT g.counter_key FROM gone_counts g)) RETURNING 1
      )
      SELECT (SELECT count(*) FROM deleted_starts)::integer AS starts,
        (SELECT count(*) FROM deleted_counts)::integer AS counts`,
  });
}
