import type { VerificationPayload } from '../wire/payload/types.js';
import type { StoreAlarmListener } from './store-alarm.js';

/**
 * Where a tracked record stands:
 * - `pending`: no result yet; polled when due.
 * - `delivering`: a result is stored and waits for handlers to succeed (retried when due).
 * - `completed`: handlers succeeded; kept for its retention, then removed.
 * - `expired`: never completed within its lifetime, or given up to make room for newer
 *   sessions of the same user; `verification.expired` was emitted.
 * - `failed`: handlers failed on every one of `maxDeliveryAttempts` attempts (dead letter);
 *   `verification.undeliverable` was emitted.
 */
export type TrackedState = 'pending' | 'delivering' | 'completed' | 'expired' | 'failed';

/** The states a record can be worked on in. */
export type OpenState = 'pending' | 'delivering';

/** The states a record ends in. */
export type ClosedState = 'completed' | 'expired' | 'failed';

/** A verified result kept until handlers succeed. */
export interface StoredResult {
  payload: VerificationPayload;
  source: 'webhook' | 'poll';
  /** When faceverify received it, in ms since the epoch. */
  receivedAt: number;
  /** Label of the signing secret that verified a webhook. */
  secretLabel?: string;
  /**
   * The result is known to be its session's: the webhook named the session, or the
   * service confirmed it. Results that came by polling are always the service's own.
   */
  confirmed?: boolean;
  /**
   * A webhook's result kept until the service can confirm it (it answered `429` when
   * asked): never delivered as it is, only once the service agrees.
   */
  awaitingConfirmation?: boolean;
  /**
   * The user had started a newer session when this result was settled: `delivered` to the
   * handlers all the same (with `superseded: true`), or `skipped` (`supersededResults:
   * 'skip'`): the record was closed as done without them. What `waitForResult` and
   * `confirm()` say of a closed record.
   */
  superseded?: 'delivered' | 'skipped';
  /**
   * With `awaitingConfirmation`: a webhook that named the session's user while the user had
   * several open sessions, so it may be another session's. Kept while the service cannot be
   * asked, only as the sign that a webhook came; never delivered, nor contradicted by the
   * service's answer, which is what is delivered.
   */
  userOnly?: boolean;
}

/** Whether a stored result is the service's word, not a webhook's claim alone. */
export function isConfirmed(result: StoredResult): boolean {
  return result.source === 'poll' || result.confirmed === true;
}

/** Told the key of a record a store closed (see `Store.watchClosed`). */
export type ClosedRecordListener = (key: string) => void;

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
  /**
   * The session's verify URL, for a session started by `startVerification`, so a start of the
   * same need hands it out again. Never held by a store in clear: it holds the token, so it is
   * sealed with it and goes with it when the record closes.
   */
  verifyUrl?: string;
  /**
   * When the service said the verify URL's token expires (ms since the epoch), sealed with it:
   * a start hands the link out again only while it has life left at the service too.
   */
  verifyUrlExpiresAt?: number;
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
  /**
   * Never written by a store. The Receiver marks a record whose sealed token or sealed result
   * no key it lists opens, with the ids of the keys it was sealed under, and hands it over
   * without them (`hasResult`: a result is stored): it leaves such a record to an instance
   * that can open it, and neither polls, delivers nor expires it.
   */
  unreadableToken?: { keyIds: string[]; hasResult?: boolean };
  /**
   * Never written by a store. The Receiver marks an open record whose user is indexed under a
   * key it no longer lists as a token key (a key removed before the sessions it keyed had
   * closed, or a signing secret that keyed them before `tokenKeys` were set), with the ids of
   * the keys its token is sealed under that it looks no user up under: the record is polled
   * and delivered as any other, but a webhook naming its user does not find it.
   */
  userKeyMissing?: { keyIds: string[] };
  /**
   * Never written by a store. The account the record is of, on a Receiver of several
   * accounts: the Receiver gives it and gets it back, and the store holds it within the
   * stored user id (see `accounts` in the Receiver's options).
   */
  account?: string;
}

/** What `settle` writes when its work on a leased record is done. */
export type SettleUpdate =
  | {
      state: OpenState;
      dueAt: number;
      attempts: number;
      result?: StoredResult;
    }
  | {
      state: ClosedState;
      /**
       * How long the closed record is kept, so late duplicates are recognised.
       */
      retainMs: number;
      /**
       * The result delivered, kept with the closed record when it had none yet.
       */
      result?: StoredResult;
      /**
       * Delivery attempts made, when the record is closed after handler failures.
       */
      attempts?: number;
    };

/** Outcome of `attachResult`. */
export type AttachOutcome = 'attached' | 'already-attached' | 'closed' | 'missing';

/** Options of `Store.insert`. */
export interface InsertOptions {
  record: TrackedSession;
  now: number;
  /**
   * At most this many open records per user. When the user already has that many, the
   * oldest open ones (by `createdAt`) are closed as `expired` for `displacedRetainMs` and
   * returned in `displaced`, in the same atomic step. Absent: no bound.
   */
  maxOpenPerUser?: number;
  /** How long a displaced record is kept after closing. Default 0. */
  displacedRetainMs?: number;
  /**
   * The claimed start this record ends (see `Store.claimStart`): the start names the record
   * from now on, so a claim of the same start reuses it, and `owner`'s claim ends.
   */
  start?: InsertedStart;
}

/** Outcome of `Store.insert`. */
export interface InsertOutcome {
  /** `false` when a record with this key already existed; nothing was changed then. */
  inserted: boolean;
  /** Open records of the same user closed to stay within `maxOpenPerUser`, as they were. */
  displaced: TrackedSession[];
}

/**
 * The start a record ends, given to `Store.insert` by the caller that holds the claim on it
 * (`Store.claimStart`): from then on the start names this record, and the claim ends.
 */
export interface InsertedStart {
  /** The start, as claimed. */
  startKey: string;
  /** The claim's owner, as claimed: a claim meanwhile taken over by another owner is left to it. */
  owner: string;
}

/** A count of starts (`Store.claimStart`): of one user or one account, in one period. */
export interface StartCounter {
  /**
   * Names the count, and its period: a keyed hash or an account id, and a day or an hour,
   * computed by the caller; never a user's id in clear. The store keeps it as it is.
   */
  key: string;
  /**
   * A claim that would take the count past this is refused (`limited`), and counts nothing.
   * Absent: counted, never refused.
   */
  limit?: number;
  /** Only read, never counted: a past period, for comparison. */
  readOnly?: boolean;
  /** How long the count is kept after it was first counted. */
  ttlMs: number;
}

/** Options of `Store.claimStart`. */
export interface ClaimStartOptions {
  /**
   * One need of one user: a keyed hash of the user and of the purpose the caller names, the
   * same on every process with the same keys. The store keeps it as it is.
   */
  startKey: string;
  /** The user, as records hold it: `forgetUser` removes the user's starts with the records. */
  externalUserId: string;
  /**
   * Who claims: one owner per start under way, as a lease's owner is one per piece of work. A
   * claim by the owner that holds it is granted again, and counted again.
   */
  owner: string;
  now: number;
  /**
   * How long the claim holds when its owner neither inserts the session nor ends the claim
   * (a crash): longer than the session's creation can take.
   */
  claimMs: number;
  /**
   * The open record the start names is handed back for reuse while it is `pending` and expires
   * this many ms after `now` or later. Absent: never reused (a fresh session was asked for).
   */
  reuseMinLifetimeMs?: number;
  /** Counted once when the claim is granted, in the same atomic step; read in every outcome. */
  counters: readonly StartCounter[];
}

/** Outcome of `Store.claimStart`. */
export type ClaimStartOutcome =
  /** The start's open session, to hand out again. Nothing was counted. */
  | { claim: 'reuse'; record: TrackedSession }
  /** The caller creates the session, then inserts it with `start`, or ends the claim. */
  | { claim: 'granted'; counts: number[] }
  /** Another owner's claim holds until `until`: its session is being created. */
  | { claim: 'busy'; until: number }
  /** `counters[counter]` is at its limit; nothing was counted. */
  | { claim: 'limited'; counter: number; counts: number[] };

/** Options of `Store.endStart`. */
export interface EndStartOptions {
  startKey: string;
  owner: string;
  now: number;
}

/** Options of `Store.get`. */
export interface GetOptions {
  key: string;
  now: number;
}

/** Options of `Store.findByUser`. */
export interface FindByUserOptions {
  externalUserId: string;
  now: number;
  /**
   * At most this many records: every open one first, then the most recently closed.
   * Bounds the work per webhook whatever one user has accumulated.
   */
  limit: number;
  /**
   * A hint, never an instruction: keys of records the caller expects this user to have (the
   * ones it inserted or found before). A store that must name every key a call reads before
   * it runs (`RedisStore`: its scripts declare their keys, for Redis Cluster) may name these
   * up front and so read them in its first run. What is found must not depend on it: a key
   * named that is not the user's is not listed, and a record of the user not named is
   * listed all the same (at the cost of another run). Stores that need no keys up front
   * ignore it.
   */
  keys?: readonly string[];
}

/** Options of `Store.hasNewerSession`. */
export interface HasNewerSessionOptions {
  /**
   * The user's ids as the store holds them: one user may be stored under several (its keyed
   * hash under each configured key, during a rotation). Any of them counts.
   */
  externalUserIds: readonly string[];
  /** Counted only when started after this (ms since the epoch); the same ms is not after. */
  createdAfter: number;
  now: number;
}

/**
 * A hint, never an instruction, of the calls that name one record: the record's user id as
 * the store holds it (`externalUserId` of the record as the store returned it), when the
 * caller knows it. A store that must name every key a call touches before it runs
 * (`RedisStore`, whose scripts declare the keys of the record's user indexes, for Redis
 * Cluster) may use it to name them up front, in one run instead of one that learns them and
 * one that uses them. A store must check it against the record and act as without it when
 * they differ: the outcome of a call never depends on the hint. Stores that need no keys up
 * front (SQL, memory) ignore it. The Receiver gives it where it read the record before.
 */
export interface RecordUserHint {
  /** The record's user id as the store holds it, when the caller knows it: a hint. */
  user?: string;
}

/** Options of `Store.remember`. */
export interface RememberOptions {
  /** A digest of a delivery's body (hex), never a secret. */
  digest: string;
  ttlMs: number;
  now: number;
}

/** Options of `Store.forget`. */
export interface ForgetOptions {
  digest: string;
}

/** Options of `Store.attachResult`. */
export interface AttachResultOptions extends RecordUserHint {
  key: string;
  result: StoredResult;
  now: number;
}

/** Options of `Store.lease`. */
export interface LeaseOptions extends RecordUserHint {
  key: string;
  owner: string;
  now: number;
  leaseMs: number;
}

/** Options of `Store.attachAndLease`: those of `attachResult`, and of the lease it takes. */
export interface AttachAndLeaseOptions extends AttachResultOptions {
  /** Who the record is leased to, as in `lease`. */
  owner: string;
  /** How long the lease lasts from `now`, as in `lease`. */
  leaseMs: number;
}

/** Outcome of `Store.attachAndLease`. */
export interface AttachAndLeaseOutcome {
  /** What `attachResult` would have answered. */
  attached: AttachOutcome;
  /**
   * The record leased to `owner`, as `lease` returns it: present only when `attached` is
   * `'attached'` and the record could be granted (another owner's live lease keeps it).
   */
  leased?: TrackedSession;
}

/** Options of `Store.leaseDue`. */
export interface LeaseDueOptions {
  owner: string;
  now: number;
  leaseMs: number;
  /** At most this many records are leased. */
  limit: number;
}

/** Options of `Store.settle` and `TransactionalStore.settleWith`. */
export interface SettleOptions extends RecordUserHint {
  key: string;
  owner: string;
  update: SettleUpdate;
  now: number;
}

/** Options of `Store.counts`. */
export interface CountsOptions {
  now: number;
}

/** Options of `Store.listDeadLetters`. */
export interface ListDeadLettersOptions {
  now: number;
  /** At most this many records in the page. */
  limit: number;
  /** Where the previous page ended (its `cursor`); absent for the first page. */
  cursor?: string;
}

/** One page of dead letters, oldest first. */
export interface DeadLetterPage {
  records: TrackedSession[];
  /** Pass it to `listDeadLetters` for the next page; absent when this page is the last. */
  cursor?: string;
}

/** Options of `Store.redeliverDeadLetter` and `Store.discardDeadLetter`. */
export interface DeadLetterOptions {
  key: string;
  now: number;
}

/** Options of `Store.forgetUser`. */
export interface ForgetUserOptions {
  /** The user whose records are removed, as the records name them. */
  externalUserId: string;
  now: number;
}

/** Options of `Store.dueSummary`. */
export interface DueSummaryOptions {
  now: number;
}

/** Open records whose work is due and not leased: the backlog a sweep has to catch up on. */
export interface DueSummary {
  /** How many open records are due at `now`. */
  due: number;
  /** The earliest due time among them (ms since the epoch); absent when none is due. */
  oldestDueAt?: number;
}

/** Open records whose work is due now and waits for a sweep. */
export interface StoreBacklog {
  /** Records due now and not leased: polls and delivery retries a sweep has yet to take. */
  due: number;
  /** How long the earliest of them has been due, in ms; `null` when none is. */
  oldestDueAgeMs: number | null;
}

/**
 * How long past both its `expiresAt` and its `dueAt` an open record may be kept (rule 8 of
 * `Store`: nothing is kept forever): a day. Every store of this repository drops it then.
 */
export const OPEN_RECORD_GRACE_MS = 86_400_000;

/**
 * Persistence for tracked sessions, deliveries and the replay window. Every method takes one
 * options object, and every time is passed in as `now` (ms since the epoch): a store never
 * reads a clock of its own for what it decides, so the Receiver's clock rules everywhere.
 *
 * Contract (every implementation must keep it; `storeContractCases` from
 * `@faceverify/core/store` checks it, and `MemoryStore` and `RedisStore` pass it):
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
 *    with a `result` keeps it, so a late webhook of a result that came by polling is
 *    recognised as a duplicate. A `settle` other than `pending` that gives a `result` stores
 *    it in place of the record's: the owner's is what was (or will be) delivered, and past
 *    its image link's life it holds no link.
 * 7. `leaseDue` costs time in proportion to the due records, not to all tracked records.
 * 8. Nothing is kept forever: open records may be dropped once they are a day past both
 *    their `expiresAt` and their `dueAt` (a durable store sets a TTL on everything it writes).
 * 9. `insert` keeps at most `maxOpenPerUser` open records per user, closing the oldest.
 * 10. Dead letters (records closed as `failed`, still retained) are listed oldest closed
 *     first; `redeliverDeadLetter` reopens one and `discardDeadLetter` removes one, each
 *     only while it is still a dead letter, so of concurrent calls on one record exactly one
 *     applies. `dueSummary` reads an index of due times, never every record.
 * 11. `forgetUser` removes every record of one user (open, leased or not, closed and
 *     retained, dead letters) and every index entry naming the user, atomically with respect
 *     to every other call on those records: a `lease`, `settle` or `attachResult` after it
 *     finds no record, so work in flight on one of them (a sweep's lease) cannot write it back.
 * 12. Hints (`user` of the calls naming a record, `keys` of `findByUser`) never change an
 *     outcome: a call given a wrong hint answers as one given none. `attachAndLease`, where a
 *     store has it, answers as `attachResult` followed at once by `lease` would.
 * 13. Starts (`claimStart`, `endStart`, where a store has them): of concurrent claims of one
 *     start, across processes, one is `granted`; the others are `busy` while its claim holds,
 *     and once it ends are granted again (`endStart`, or the claim lapsed) or handed the record
 *     it was inserted with (`reuse`, while that record is `pending` with the life asked for).
 *     A granted claim counts each counter not `readOnly` once, atomically with the grant; a
 *     claim `limited`, `busy` or reused counts nothing, so no count passes its limit however
 *     many claim at once. A start is kept while its claim holds or its record is kept, no
 *     longer; `forgetUser` removes the user's starts with the records.
 * 14. `hasNewerSession`, where a store has it, is `true` exactly when a record `get` would
 *     return at `now` (open, or closed and still retained) is of one of `externalUserIds`, is
 *     a tracked session's (any key but a delivery matched to no session, `webhook:`), and was
 *     created after `createdAfter`; one call, whatever the number of ids or records.
 *
 * What a store is given is already protected, and it keeps each value as it is given, deciding
 * nothing on it (docs/polling-and-stores.md, "Session tokens at rest" and "Results at rest"):
 * `key` is `t1:` and a keyed hash of the token (or `webhook:<digest>`), `externalUserId` is `u1:`
 * and a keyed hash of the id, `token` is sealed text and `result` is `{ sealed: <text> }`. The
 * sealed format is versioned by its prefix, and every version stays readable:
 * - `fvt2.` (token) and `fvr2.` (result), written now: an envelope, sealed once whatever the
 *   number of keys, `<key id>.<wrapped data key>` for each sealing key, then `~` and each sealed
 *   part (a result's image link is a part of its own, left out once of no further use);
 * - `fvt1.` and `fvr1.`, written before: `<key id>.<IV and ciphertext>`, sealed under each key.
 * A record written before protection holds its token, id and result in clear.
 */
export interface Store {
  /** Adds a record unless its key exists. */
  insert(options: InsertOptions): Promise<InsertOutcome>;
  get(options: GetOptions): Promise<TrackedSession | undefined>;
  /** Records of a user that are open or still retained after closing (see `limit`). */
  findByUser(options: FindByUserOptions): Promise<TrackedSession[]>;
  /**
   * Optional: whether any of `externalUserIds` has a session started after `createdAfter`
   * still kept (contract rule 14): what tells a result `superseded`, in one light call (no
   * record read back, whatever the number of ids). Without it, the Receiver lists the user's
   * records with `findByUser` under each id and compares them itself.
   *
   * @example
   * const newer = await store.hasNewerSession({ externalUserIds: ['u1:…'], createdAfter, now });
   */
  hasNewerSession?(options: HasNewerSessionOptions): Promise<boolean>;
  /** Records a digest for `ttlMs`; `true` when it was not already recorded. */
  remember(options: RememberOptions): Promise<boolean>;
  /** Removes a digest, so a delivery that could not be stored can be accepted again. */
  forget(options: ForgetOptions): Promise<void>;
  attachResult(options: AttachResultOptions): Promise<AttachOutcome>;
  /**
   * Optional: `attachResult` and, when it attached the result, `lease` to `owner`, in one
   * atomic step (a webhook's result, then its delivery). The same as the two calls one after
   * the other with no call of anyone else between them; one round trip instead of two. The
   * Receiver makes the two calls on a store without it.
   */
  attachAndLease?(options: AttachAndLeaseOptions): Promise<AttachAndLeaseOutcome>;
  lease(options: LeaseOptions): Promise<TrackedSession | undefined>;
  /** Leases up to `limit` open records due at `now`, earliest first. */
  leaseDue(options: LeaseDueOptions): Promise<TrackedSession[]>;
  /** Writes the outcome of leased work and ends the lease; `false` when the lease was lost. */
  settle(options: SettleOptions): Promise<boolean>;
  /**
   * Optional: claims one start (one need of one user) before the session is created, so that
   * concurrent starts, on any process, create one session and hand it out again while it is
   * open (contract rule 13), and counts it against `counters` in the same atomic step. The
   * Receiver's `startVerification` uses it; on a store without it, starts are neither shared
   * between processes nor counted.
   *
   * @example
   * const outcome = await store.claimStart({ startKey, externalUserId, owner, now, claimMs: 60_000, reuseMinLifetimeMs: 300_000, counters: [] });
   * if (outcome.claim === 'granted') await store.insert({ record, now, start: { startKey, owner } });
   */
  claimStart?(options: ClaimStartOptions): Promise<ClaimStartOutcome>;
  /** Ends `owner`'s claim of a start without a session (its creation failed); see `claimStart`. */
  endStart?(options: EndStartOptions): Promise<void>;
  /** Counts records by state, for health checks and tests. */
  counts(options: CountsOptions): Promise<Record<TrackedState, number>>;
  /**
   * Dead letters: records closed as `failed` and still retained, oldest closed first, at
   * most `limit` per page. Records keep their stored result and attempts, never a token.
   *
   * @example
   * let page = await store.listDeadLetters({ now: Date.now(), limit: 100 });
   * while (page.cursor) page = await store.listDeadLetters({ now: Date.now(), limit: 100, cursor: page.cursor });
   */
  listDeadLetters(options: ListDeadLettersOptions): Promise<DeadLetterPage>;
  /**
   * Reopens a dead letter for delivery, atomically and only while it is still `failed`:
   * `delivering`, due at `now`, attempts back to 0, its result kept. `true` when this call
   * reopened it; of concurrent calls on one record, exactly one is `true`.
   */
  redeliverDeadLetter(options: DeadLetterOptions): Promise<boolean>;
  /**
   * Removes a dead letter for good, atomically and only while it is still `failed`. `true`
   * when this call removed it.
   */
  discardDeadLetter(options: DeadLetterOptions): Promise<boolean>;
  /** How many open records are due at `now` and not leased, and the earliest due time. */
  dueSummary(options: DueSummaryOptions): Promise<DueSummary>;
  /**
   * Erasure: removes every record of `externalUserId`, whatever its state (open, leased by a
   * sweep in flight, `delivering`, closed and still retained, a dead letter), and every index
   * or mapping that names the user, in one atomic step against every other call on those
   * records (contract rule 11). A lease held on a removed record is lost with it: the owner's
   * `settle` resolves `false` and writes nothing, so no sweep brings the record back.
   * Resolves with how many records it removed that were still readable at `now` (a closed
   * record past its retention is removed as well, and not counted); a second call resolves 0.
   *
   * Records inserted after the call began are not removed: a new session started for the
   * user afterwards is new data. Replay digests (`remember`) stay until their ttl: each is a
   * hash of a delivery's body, which names nobody without that body, and keeping it is what
   * stops the same delivery, sent again, from being stored again.
   *
   * Required since it was added: a Store of your own without it no longer type-checks.
   *
   * @example
   * const removed = await store.forgetUser({ externalUserId: 'user_42', now: Date.now() });
   */
  forgetUser(options: ForgetUserOptions): Promise<number>;
  /**
   * Optional, for stores that can lose data behind their own back (Redis without
   * persistence, or with an eviction policy; a replicated server that can fail over): calls
   * `listener` once per finding that the store can no longer vouch for what it holds
   * (`store_reset`), may drop data on its own (`store_eviction_risk`), went back in time
   * through a failover (`store_rewound`) or could not replicate a write as asked
   * (`store_unreplicated`). The Receiver subscribes when it is created. Returns a function
   * that removes the listener.
   */
  onAlarm?(listener: StoreAlarmListener): () => void;
  /**
   * Optional: the store server's current time, in ms since the epoch (Redis `TIME`,
   * PostgreSQL `clock_timestamp()`), read with one round trip. Every process sharing the
   * store reads the same clock, so times that several processes compare (a lease's end) can
   * be taken from it instead of from each process's own clock: the Receiver keeps leases and
   * due times on it (its `storeClock` option). Stores kept in the process
   * (`MemoryStore`, PGlite) omit it: the process clock is theirs. Rejects like any other
   * operation when the server cannot be reached.
   */
  readClock?(): Promise<number>;
  /**
   * Optional: calls `listener` with the key of each record this store closes (`completed`,
   * `expired`, `failed`), from this process and, where the store can (Redis pub/sub),
   * from every process sharing it. A hint to read the record again, never the record
   * itself: a notice may be lost (a connection dropped) or arrive twice, so a reader also
   * reads on its own now and then. `waitForResult` rides on it. Returns a function that
   * removes the listener; the last one removed releases what the subscription held.
   */
  watchClosed?(listener: ClosedRecordListener): () => void;
}

/** What `settleWith` came to. */
export type SettledWith<T> = { settled: true; value: T } | { settled: false };

/**
 * A Store that can run work in the same transaction as the `settle` that records it (an
 * SQL store): the work's writes and the record's new state commit together, or neither
 * does. This is what makes a handler's effects happen once even across a crash.
 *
 * `settleWith` must, atomically: check that `owner` holds the lease (else resolve
 * `{ settled: false }` without running `work`), run `work` with the open transaction, apply
 * `update`, and commit. When `work` throws, nothing is written (the lease stays with
 * `owner`) and the error is rethrown.
 */
export interface TransactionalStore<Transaction = unknown> extends Store {
  settleWith<T>(
    options: SettleOptions,
    work: (transaction: Transaction) => Promise<T>,
  ): Promise<SettledWith<T>>;
}

/** The transaction type a store hands to transactional handlers (`never` when it has none). */
export type TransactionOf<S> =
  S extends TransactionalStore<infer Transaction> ? Transaction : never;

export function isOpen(state: TrackedState): state is OpenState {
  return state === 'pending' || state === 'delivering';
}

export function isTransactional(store: Store): store is TransactionalStore {
  return typeof (store as Partial<TransactionalStore>).settleWith === 'function';
}
