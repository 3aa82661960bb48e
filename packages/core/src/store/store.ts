import type { VerificationPayload } from '../payload/types.js';

/**
 * Where a tracked session stands:
 * - `pending`: no result yet; polled when due.
 * - `delivering`: a result is stored and waits for handlers to succeed (retried when due).
 * - `completed`: handlers succeeded; kept for the replay window, then removed.
 * - `expired`: never completed within its lifetime; `verification.expired` was emitted.
 */
export type TrackedState = 'pending' | 'delivering' | 'completed' | 'expired';

/** A verified result kept until handlers succeed. */
export interface StoredResult {
  payload: VerificationPayload;
  source: 'webhook' | 'poll';
  /** When faceverify received it, in ms since the epoch. */
  receivedAt: number;
  /** Label of the signing secret that verified a webhook. */
  secretLabel?: string;
}

/** A lease: who may work on a record, and until when (ms since the epoch). */
export interface Lease {
  owner: string;
  until: number;
}

/** One unit of tracked work: a verification session, or a delivery matched to no session. */
export interface TrackedSession {
  /** The session token, or `webhook:<digest>` for a verified delivery that matched no session. */
  key: string;
  /** The hosted session token; absent for a delivery matched to no session. */
  token?: string;
  externalUserId: string;
  createdAt: number;
  /** After this instant a session still pending is given up. */
  expiresAt: number;
  state: TrackedState;
  /** When the next poll (pending) or delivery attempt (delivering) is due. */
  dueAt: number;
  /** Polls made while pending, delivery attempts while delivering. */
  attempts: number;
  result?: StoredResult;
  lease?: Lease;
}

/** What `settle` writes when its work on a leased record is done. */
export type SettleUpdate =
  | {
      state: 'pending' | 'delivering';
      dueAt: number;
      attempts: number;
      result?: StoredResult;
    }
  | {
      state: 'completed' | 'expired';
      /** How long the closed record is kept, so late duplicates are recognised. */
      retainMs: number;
      /** The result delivered, kept with the closed record when it had none yet. */
      result?: StoredResult;
    };

/** Outcome of `attachResult`. */
export type AttachOutcome = 'attached' | 'already-attached' | 'closed' | 'missing';

/**
 * Persistence for tracked sessions, deliveries and the replay window.
 *
 * Atomicity contract (every implementation must keep it; `MemoryStore` and `RedisStore`
 * are checked by the same contract tests):
 * 1. Each method is atomic with respect to every other call on the same key, across all
 *    processes sharing the store.
 * 2. `lease` and `leaseDue` grant a record to one owner at a time: a record is granted only
 *    when it is open (`pending` or `delivering`) and has no lease, or its lease has passed
 *    `until`, or the caller already owns it (renewal). Granting moves the record's due time
 *    to the lease end, so a crashed owner's work is picked up again after the lease.
 * 3. `settle` applies only while `owner` still holds the lease, and ends it. Settling
 *    `pending` on a record that meanwhile received a result (through `attachResult`) keeps
 *    the result: the record becomes `delivering`, due at once. Nothing attached is lost.
 * 4. `attachResult` stores the first result of an open record and makes it due at once; it
 *    never replaces a result and never reopens a closed record.
 * 5. `remember` records a digest for `ttlMs` and resolves `true` only for the first caller.
 * 6. Closed records stay readable for their `retainMs`, then disappear. A record completed
 *    with a `result` keeps it (unless it already had one), so a late webhook of a result
 *    that came by polling is recognised as a duplicate.
 * 7. `leaseDue` costs time in proportion to the due records, not to all tracked records.
 */
export interface Store {
  /** Adds a record unless its key exists; resolves `true` when it was added. */
  insert(session: TrackedSession): Promise<boolean>;
  get(key: string): Promise<TrackedSession | undefined>;
  /** Every record of a user that is open or still retained after closing. */
  findByUser(externalUserId: string): Promise<TrackedSession[]>;
  /** Records a digest for `ttlMs`; `true` when it was not already recorded. */
  remember(digest: string, ttlMs: number, now: number): Promise<boolean>;
  /** Removes a digest, so a delivery that could not be stored can be accepted again. */
  forget(digest: string): Promise<void>;
  attachResult(key: string, result: StoredResult, now: number): Promise<AttachOutcome>;
  lease(
    key: string,
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<TrackedSession | undefined>;
  /** Leases up to `limit` open records due at `now`, earliest first. */
  leaseDue(now: number, limit: number, owner: string, leaseMs: number): Promise<TrackedSession[]>;
  /** Writes the outcome of leased work and ends the lease; `false` when the lease was lost. */
  settle(key: string, owner: string, update: SettleUpdate, now: number): Promise<boolean>;
  /** Counts records by state, for health checks and tests. */
  counts(): Promise<Record<TrackedState, number>>;
}

export function isOpen(state: TrackedState): boolean {
  return state === 'pending' || state === 'delivering';
}
