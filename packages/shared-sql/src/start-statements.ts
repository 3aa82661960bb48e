import type { ClaimStartOptions } from '@faceverify/core/store';
import type { SqlDialect } from './dialect.js';

/** Where a store keeps its starts (`Store.claimStart`) and their counts. */
export interface StartTables {
  /** One row per start: its user, the record it names, and a claim while one holds. */
  readonly starts: string;
  /** One row per count of starts, until the end of its period. */
  readonly startCounts: string;
}

/** The statements on starts that PostgreSQL and D1 run alike, as `startStatements` builds them. */
export type StartStatements = Readonly<Record<'endStart' | 'forgetStarts', string>>;

/**
 * The statements on starts (Store contract rule 13) whose text is the same on PostgreSQL and
 * D1. Claiming a start is not one of them: it reads, checks and writes several rows in turn,
 * which PostgreSQL does in a function under row locks and D1 in one batch.
 */
export function startStatements(
  { starts }: StartTables,
  dialect: Pick<SqlDialect, 'placeholders'>,
): StartStatements {
  const sql = (text: string) => dialect.placeholders(text);
  return {
    /**
     * `$1` start, `$2` owner, `$3` now. Ends the owner's claim, when it still holds it. The row
     * is kept while the record it names can be handed out again, else it may go at once.
     */
    endStart: sql(`UPDATE ${starts} SET owner = NULL, claim_until = NULL,
        drop_at = COALESCE(record_expires_at, $3::bigint)
      WHERE start_key = $1::text AND owner = $2::text`),
    /** `$1` user. Erasure: the user's starts, with the user's records. */
    forgetStarts: sql(`DELETE FROM ${starts} WHERE external_user_id = $1::text`),
  };
}

/** A claim's values as PostgreSQL and D1 bind them (see `startClaimValues`). */
export interface StartClaimValues {
  /** When the claim lapses. */
  claimUntil: number;
  /** The expiry a record handed back must reach; `null` when none is (a fresh session). */
  reuseBy: number | null;
  /** The counters as JSON: `[{ key, limit, readOnly, ttlMs }]`, `limit` null for none, `readOnly` 1 or 0. */
  counters: string;
}

/** What `claimStart` binds, from its options; refuses a claim that would lapse at once. */
export function startClaimValues(options: ClaimStartOptions, storeName: string): StartClaimValues {
  const { now, claimMs, reuseMinLifetimeMs } = options;
  if (!(claimMs >= 1)) {
    throw new RangeError(`${storeName}.claimStart: claimMs must be at least 1, got ${claimMs}`);
  }
  return {
    claimUntil: now + claimMs,
    reuseBy: reuseMinLifetimeMs === undefined ? null : now + Math.max(0, reuseMinLifetimeMs),
    counters: JSON.stringify(
      options.counters.map(({ key, limit, readOnly, ttlMs }) => ({
        key,
        limit: limit ?? null,
        readOnly: readOnly ? 1 : 0,
        ttlMs: Math.max(0, Math.ceil(ttlMs)),
      })),
    ),
  };
}
