import { decodeDeadLetterCursor, encodeDeadLetterCursor, isAfter } from './dead-letter-cursor.js';
import { MinHeap } from './min-heap.js';
import { isUnmatchedKey } from './record-keys.js';
import { ReplayDigests } from './replay-digests.js';
import { StartClaims } from './start-claims.js';
import {
  type AttachAndLeaseOptions,
  type AttachAndLeaseOutcome,
  type AttachOutcome,
  type AttachResultOptions,
  type ClaimStartOptions,
  type ClaimStartOutcome,
  type ClosedRecordListener,
  type CountsOptions,
  type DeadLetterOptions,
  type DeadLetterPage,
  type DueSummary,
  type DueSummaryOptions,
  type EndStartOptions,
  type FindByUserOptions,
  type ForgetOptions,
  type ForgetUserOptions,
  type GetOptions,
  type HasNewerSessionOptions,
  type InsertOptions,
  type InsertOutcome,
  isOpen,
  type Lease,
  type LeaseDueOptions,
  type LeaseOptions,
  type ListDeadLettersOptions,
  OPEN_RECORD_GRACE_MS,
  type RememberOptions,
  type SettleOptions,
  type Store,
  type StoredResult,
  type TrackedSession,
  type TrackedState,
} from './store.js';

interface Entry {
  at: number;
  key: string;
}

/** How often open records are walked for those past `OPEN_RECORD_GRACE_MS`. */
const OPEN_SWEEP_EVERY_MS = 3_600_000;

/**
 * A record as kept here: every field always present (`undefined` when unset), so records keep
 * one shape and dropping a lease or a token never turns one into a dictionary (`delete` does).
 */
interface Stored {
  key: string;
  token: string | undefined;
  externalUserId: string;
  createdAt: number;
  expiresAt: number;
  state: TrackedState;
  dueAt: number;
  attempts: number;
  result: StoredResult | undefined;
  lease: Lease | undefined;
  purgeAt: number | undefined;
}

function stored(session: TrackedSession): Stored {
  return {
    key: session.key,
    token: session.token,
    externalUserId: session.externalUserId,
    createdAt: session.createdAt,
    expiresAt: session.expiresAt,
    state: session.state,
    dueAt: session.dueAt,
    attempts: session.attempts,
    result: session.result && { ...session.result },
    lease: session.lease && { owner: session.lease.owner, until: session.lease.until },
    purgeAt: undefined,
  };
}

/** A copy the caller may change without touching the store (one object literal: every read). */
function copy(record: Stored): TrackedSession {
  const session: TrackedSession = {
    key: record.key,
    externalUserId: record.externalUserId,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    state: record.state,
    dueAt: record.dueAt,
    attempts: record.attempts,
  };
  if (record.token !== undefined) session.token = record.token;
  if (record.result) session.result = { ...record.result };
  if (record.lease) session.lease = { owner: record.lease.owner, until: record.lease.until };
  return session;
}

/**
 * The default Store: fast, atomic within one process, and gone when the process ends.
 * A crash or restart loses tracked sessions and stored results, so several instances or
 * anything that must survive a restart should use `RedisStore` from `@faceverify/redis`.
 *
 * @example
 * const receiver = createReceiver({ store: new MemoryStore() });
 */
export class MemoryStore implements Store {
  private readonly records = new Map<string, Stored>();
  private readonly closedListeners = new Set<ClosedRecordListener>();
  // A user's keys: one key as it is (the common case, and no Set to allocate and empty again
  // for every delivery), a Set once there are several.
  private readonly byUser = new Map<string, string | Set<string>>();
  // A day of webhooks is remembered here: see ReplayDigests for how it stays small.
  private readonly digests = new ReplayDigests();
  // Due times and expiry times are indexed by heaps with lazy deletion: an entry whose time
  // no longer matches its record is stale and dropped when it surfaces. A sweep therefore
  // costs in proportion to the due records, not to everything tracked.
  private readonly due = new MinHeap<Entry>();
  private readonly recordExpiries = new MinHeap<Entry>();
  // Keys of the dead letters, so listing them reads them alone.
  private readonly deadLetters = new Set<string>();
  // The `now` of the last purge, and when open records are next walked (`dropStaleOpen`).
  private purgedAt: number | undefined;
  private openSweepAt = Number.NEGATIVE_INFINITY;
  private readonly starts = new StartClaims({
    reusable: (key, expiresBy) => {
      const record = this.records.get(key);
      return record?.state === 'pending' && record.expiresAt >= expiresBy
        ? copy(record)
        : undefined;
    },
    isKept: (key) => this.records.has(key),
  });

  async insert({
    record: session,
    now,
    maxOpenPerUser,
    displacedRetainMs = 0,
    start,
  }: InsertOptions): Promise<InsertOutcome> {
    this.purge(now);
    if (this.records.has(session.key)) return { inserted: false, displaced: [] };
    if (start)
      this.starts.inserted(start.startKey, start.owner, session.key, session.externalUserId);
    const displaced =
      maxOpenPerUser === undefined || !isOpen(session.state)
        ? []
        : this.displaceOldest(session.externalUserId, maxOpenPerUser - 1, now, displacedRetainMs);
    const record = stored(session);
    this.records.set(record.key, record);
    const keys = this.byUser.get(record.externalUserId);
    if (keys === undefined) this.byUser.set(record.externalUserId, record.key);
    else if (typeof keys !== 'string') keys.add(record.key);
    else if (keys !== record.key)
      this.byUser.set(record.externalUserId, new Set([keys, record.key]));
    // A record inserted with a live lease becomes due when the lease ends, as leasing would.
    if (isOpen(record.state))
      this.schedule(record, Math.max(record.dueAt, record.lease?.until ?? 0));
    return { inserted: true, displaced };
  }

  async get({ key, now }: GetOptions): Promise<TrackedSession | undefined> {
    this.purge(now);
    const record = this.records.get(key);
    return record && copy(record);
  }

  async findByUser({ externalUserId, now, limit }: FindByUserOptions): Promise<TrackedSession[]> {
    this.purge(now);
    const keys = this.keysOfUser(externalUserId);
    if (keys.length === 0) return [];
    const records = keys.map((key) => this.records.get(key)!);
    const open = records.filter((record) => isOpen(record.state));
    const closed = records
      .filter((record) => !isOpen(record.state))
      .sort((a, b) => (b.purgeAt ?? 0) - (a.purgeAt ?? 0));
    return [...open, ...closed].slice(0, Math.max(0, limit)).map(copy);
  }

  async hasNewerSession({
    externalUserIds,
    createdAfter,
    now,
  }: HasNewerSessionOptions): Promise<boolean> {
    this.purge(now);
    return externalUserIds.some((externalUserId) =>
      this.keysOfUser(externalUserId).some(
        (key) => !isUnmatchedKey(key) && this.records.get(key)!.createdAt > createdAfter,
      ),
    );
  }

  async remember({ digest, ttlMs, now }: RememberOptions): Promise<boolean> {
    this.purge(now);
    return this.digests.remember(digest, ttlMs, now);
  }

  async forget({ digest }: ForgetOptions): Promise<void> {
    this.digests.forget(digest);
  }

  async attachResult({ key, result, now }: AttachResultOptions): Promise<AttachOutcome> {
    this.purge(now);
    return this.attach(key, result, now);
  }

  /** Both steps in one synchronous step: no other call runs between them. */
  async attachAndLease({
    key,
    result,
    now,
    owner,
    leaseMs,
  }: AttachAndLeaseOptions): Promise<AttachAndLeaseOutcome> {
    this.purge(now);
    const attached = this.attach(key, result, now);
    if (attached !== 'attached') return { attached };
    const leased = this.leaseNow(key, owner, now, leaseMs);
    return leased ? { attached, leased } : { attached };
  }

  async lease({ key, owner, now, leaseMs }: LeaseOptions): Promise<TrackedSession | undefined> {
    this.purge(now);
    return this.leaseNow(key, owner, now, leaseMs);
  }

  async leaseDue({ now, limit, owner, leaseMs }: LeaseDueOptions): Promise<TrackedSession[]> {
    this.purge(now);
    const granted: TrackedSession[] = [];
    const until = now + leaseMs;
    while (granted.length < limit) {
      const entry = this.due.peek();
      if (!entry || entry.at > now) break;
      this.due.pop();
      const record = this.records.get(entry.key);
      if (!record || !isOpen(record.state) || record.dueAt !== entry.at) continue;
      if (this.isLeased(record, now)) continue;
      granted.push(this.grant(record, owner, until));
    }
    return granted;
  }

  async settle({ key, owner, update, now }: SettleOptions): Promise<boolean> {
    this.purge(now);
    const record = this.records.get(key);
    if (!record || !isOpen(record.state) || record.lease?.owner !== owner) return false;
    record.lease = undefined;
    if (update.result && (update.state !== 'pending' || !record.result)) {
      record.result = { ...update.result };
    }
    if (update.attempts !== undefined) record.attempts = update.attempts;
    if (!('dueAt' in update)) {
      this.close(record, update.state, now, update.retainMs);
      return true;
    }
    if (record.result && update.state === 'pending') {
      record.state = 'delivering';
      this.schedule(record, now);
    } else {
      record.state = update.state;
      this.schedule(record, update.dueAt);
    }
    return true;
  }

  async claimStart(options: ClaimStartOptions): Promise<ClaimStartOutcome> {
    this.purge(options.now);
    return this.starts.claim(options);
  }

  async endStart({ startKey, owner, now }: EndStartOptions): Promise<void> {
    this.purge(now);
    this.starts.end(startKey, owner);
  }

  async counts({ now }: CountsOptions): Promise<Record<TrackedState, number>> {
    this.purge(now);
    const counts: Record<TrackedState, number> = {
      pending: 0,
      delivering: 0,
      completed: 0,
      expired: 0,
      failed: 0,
    };
    for (const record of this.records.values()) counts[record.state] += 1;
    return counts;
  }

  async listDeadLetters({ now, limit, cursor }: ListDeadLettersOptions): Promise<DeadLetterPage> {
    this.purge(now);
    const after = cursor === undefined ? undefined : decodeDeadLetterCursor(cursor);
    const letters = [...this.deadLetters]
      .map((key) => this.records.get(key)!)
      .filter((record) => !after || isAfter(record.purgeAt!, record.key, after))
      .sort((a, b) => a.purgeAt! - b.purgeAt! || (a.key < b.key ? -1 : 1));
    const page = letters.slice(0, Math.max(0, Math.floor(limit)));
    const last = page.at(-1);
    return {
      records: page.map(copy),
      ...(last && letters.length > page.length
        ? { cursor: encodeDeadLetterCursor({ purgeAt: last.purgeAt!, key: last.key }) }
        : {}),
    };
  }

  async redeliverDeadLetter({ key, now }: DeadLetterOptions): Promise<boolean> {
    this.purge(now);
    const record = this.records.get(key);
    if (record?.state !== 'failed') return false;
    this.deadLetters.delete(key);
    record.purgeAt = undefined;
    record.state = 'delivering';
    record.attempts = 0;
    this.schedule(record, now);
    return true;
  }

  async discardDeadLetter({ key, now }: DeadLetterOptions): Promise<boolean> {
    this.purge(now);
    const record = this.records.get(key);
    if (record?.state !== 'failed') return false;
    this.remove(record);
    return true;
  }

  async dueSummary({ now }: DueSummaryOptions): Promise<DueSummary> {
    this.purge(now);
    const counted = new Set<string>();
    let oldestDueAt: number | undefined;
    // The heap yields its entries due at `now` without visiting the rest; stale ones are
    // skipped as leaseDue skips them.
    this.due.visitUpTo(now, (entry) => {
      const record = this.records.get(entry.key);
      if (!record || !isOpen(record.state) || record.dueAt !== entry.at) return;
      if (this.isLeased(record, now) || counted.has(entry.key)) return;
      counted.add(entry.key);
      if (oldestDueAt === undefined || entry.at < oldestDueAt) oldestDueAt = entry.at;
    });
    const due = counted.size;
    return oldestDueAt === undefined ? { due } : { due, oldestDueAt };
  }

  async forgetUser({ externalUserId, now }: ForgetUserOptions): Promise<number> {
    // Records past their retention go first (uncounted): what is left is what reads still see.
    this.purge(now);
    const keys = this.keysOfUser(externalUserId);
    // One synchronous step: no other call runs in between, so a sweep holding a lease on one
    // of these finds it gone when it settles. Index entries left in the heaps are stale and
    // dropped when they surface, as after any removal.
    for (const key of keys) this.remove(this.records.get(key)!);
    this.starts.forgetUser(externalUserId);
    return keys.length;
  }

  /** Closes the user's oldest open records until at most `keep` remain open. */
  private displaceOldest(
    externalUserId: string,
    keep: number,
    now: number,
    retainMs: number,
  ): TrackedSession[] {
    // A user with no record (each webhook of a webhook-only Receiver) allocates nothing here.
    if (!this.byUser.has(externalUserId)) return [];
    const open = this.keysOfUser(externalUserId)
      .map((key) => this.records.get(key)!)
      .filter((record) => isOpen(record.state))
      .sort((a, b) => a.createdAt - b.createdAt);
    const excess = open.slice(0, Math.max(0, open.length - Math.max(0, keep)));
    return excess.map((record) => {
      const before = copy(record);
      record.lease = undefined;
      this.close(record, 'expired', now, retainMs);
      return before;
    });
  }

  private close(record: Stored, state: TrackedState, now: number, retainMs: number): void {
    // The sealed token is only needed to poll: once closed, nothing polls it again.
    record.token = undefined;
    record.state = state;
    record.purgeAt = now + retainMs;
    // Kept for no time (a delivery matched to no session): gone now, as the next call would
    // find it, without an expiry to queue and pop for every such webhook.
    if (retainMs <= 0) this.remove(record);
    else {
      if (state === 'failed') this.deadLetters.add(record.key);
      this.recordExpiries.push({ at: record.purgeAt, key: record.key });
    }
    const { key } = record;
    // After the operation that closed it has returned, as a store across a network tells.
    for (const listener of this.closedListeners) queueMicrotask(() => listener(key));
  }

  /** In this process only: the records this MemoryStore closes. */
  watchClosed(listener: ClosedRecordListener): () => void {
    const own = (key: string) => listener(key);
    this.closedListeners.add(own);
    return () => {
      this.closedListeners.delete(own);
    };
  }

  private attach(key: string, result: StoredResult, now: number): AttachOutcome {
    const record = this.records.get(key);
    if (!record) return 'missing';
    if (!isOpen(record.state)) return 'closed';
    if (record.result) return 'already-attached';
    record.result = { ...result };
    if (record.state === 'pending') record.attempts = 0;
    record.state = 'delivering';
    // A leased record stays with its owner, who sees the result when it settles.
    if (!this.isLeased(record, now)) this.schedule(record, now);
    return 'attached';
  }

  private leaseNow(
    key: string,
    owner: string,
    now: number,
    leaseMs: number,
  ): TrackedSession | undefined {
    const record = this.records.get(key);
    if (!record || !isOpen(record.state)) return undefined;
    if (this.isLeased(record, now) && record.lease?.owner !== owner) return undefined;
    return this.grant(record, owner, now + leaseMs);
  }

  private isLeased(record: Stored, now: number): boolean {
    return record.lease !== undefined && record.lease.until > now;
  }

  private grant(record: Stored, owner: string, until: number): TrackedSession {
    record.lease = { owner, until };
    this.schedule(record, until);
    return copy(record);
  }

  private schedule(record: Stored, at: number): void {
    record.dueAt = at;
    this.due.push({ at, key: record.key });
    // Rescheduling and removal leave stale entries behind: compacted before they outnumber
    // live ones, and soon, so that they die young instead of being promoted by the GC.
    if (this.due.size > 2 * this.records.size + 64) {
      this.due.filter((entry) => {
        const current = this.records.get(entry.key);
        return current !== undefined && isOpen(current.state) && current.dueAt === entry.at;
      });
    }
  }

  private purge(now: number): void {
    // One webhook makes several calls at the same `now`: the first purges for all of them.
    if (now === this.purgedAt) return;
    this.purgedAt = now;
    if (now >= this.openSweepAt) this.dropStaleOpen(now);
    for (let entry = this.recordExpiries.peek(); entry && entry.at <= now; ) {
      this.recordExpiries.pop();
      const record = this.records.get(entry.key);
      if (record && record.purgeAt === entry.at) this.remove(record);
      entry = this.recordExpiries.peek();
    }
    // Expired digests need nothing here: they count as absent, and their room is reclaimed
    // as the digests' table fills.
  }

  /**
   * Drops open records a day past both their expiry and their due time (rule 8 of the Store
   * contract, as the SQL stores and Redis do): a session of an account since removed, or of
   * a Receiver that stopped sweeping, is not kept forever. A walk of every record, at most
   * once an hour of `now`: cheap beside the hour, and no index to keep up at every lease.
   */
  private dropStaleOpen(now: number): void {
    this.openSweepAt = now + OPEN_SWEEP_EVERY_MS;
    this.starts.purge(now);
    for (const record of this.records.values()) {
      if (!isOpen(record.state)) continue;
      if (Math.max(record.expiresAt, record.dueAt) + OPEN_RECORD_GRACE_MS <= now) {
        this.remove(record);
      }
    }
  }

  private remove(record: Stored): void {
    this.records.delete(record.key);
    this.deadLetters.delete(record.key);
    const keys = this.byUser.get(record.externalUserId);
    if (keys === record.key) this.byUser.delete(record.externalUserId);
    else if (typeof keys === 'object') {
      keys.delete(record.key);
      if (keys.size === 0) this.byUser.delete(record.externalUserId);
    }
  }

  private keysOfUser(externalUserId: string): string[] {
    const keys = this.byUser.get(externalUserId);
    if (keys === undefined) return [];
    return typeof keys === 'string' ? [keys] : [...keys];
  }
}
