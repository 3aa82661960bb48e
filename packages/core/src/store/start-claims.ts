import type {
  ClaimStartOptions,
  ClaimStartOutcome,
  StartCounter,
  TrackedSession,
} from './store.js';

/** One start: the session it names, and the claim of whoever is creating one. */
interface Start {
  externalUserId: string;
  recordKey: string | undefined;
  owner: string | undefined;
  claimUntil: number;
}

interface Count {
  count: number;
  expiresAt: number;
}

/** What `StartClaims` needs to know of the records: the one a start names, if still there. */
export interface StartRecords {
  /** A copy of the record when it is `pending` and expires at `expiresBy` or later. */
  reusable(key: string, expiresBy: number): TrackedSession | undefined;
  /** Whether the record is kept at all, open or closed. */
  isKept(key: string): boolean;
}

/**
 * The starts and their counts of one `MemoryStore` (contract rule 13): in one process every
 * call is one synchronous step, so claiming, counting and reusing need no lock.
 */
export class StartClaims {
  private readonly starts = new Map<string, Start>();
  private readonly counts = new Map<string, Count>();

  constructor(private readonly records: StartRecords) {}

  /** Claims a start, or hands back its session, or says who holds it (`Store.claimStart`). */
  claim(options: ClaimStartOptions): ClaimStartOutcome {
    const { startKey, now, owner } = options;
    const start = this.starts.get(startKey);
    const counts = options.counters.map((counter) => this.countOf(counter.key, now));
    if (start?.recordKey !== undefined && options.reuseMinLifetimeMs !== undefined) {
      const record = this.records.reusable(start.recordKey, now + options.reuseMinLifetimeMs);
      if (record) return { claim: 'reuse', record };
    }
    if (start?.owner !== undefined && start.owner !== owner && start.claimUntil > now) {
      return { claim: 'busy', until: start.claimUntil };
    }
    const limited = options.counters.findIndex(
      (counter, index) =>
        !counter.readOnly && counter.limit !== undefined && counts[index]! >= counter.limit,
    );
    if (limited >= 0) return { claim: 'limited', counter: limited, counts };
    options.counters.forEach((counter, index) => {
      if (!counter.readOnly) counts[index] = this.count(counter, now);
    });
    this.starts.set(startKey, {
      externalUserId: options.externalUserId,
      recordKey: start?.recordKey,
      owner,
      claimUntil: now + options.claimMs,
    });
    return { claim: 'granted', counts };
  }

  /** The start names `recordKey` from now on, and `owner`'s claim of it ends. */
  inserted(startKey: string, owner: string, recordKey: string, externalUserId: string): void {
    const start = this.starts.get(startKey);
    const claimed = start?.owner !== undefined && start.owner !== owner;
    this.starts.set(startKey, {
      externalUserId,
      recordKey,
      owner: claimed ? start.owner : undefined,
      claimUntil: claimed ? start.claimUntil : 0,
    });
  }

  /** Ends `owner`'s claim, leaving the session the start names (`Store.endStart`). */
  end(startKey: string, owner: string): void {
    const start = this.starts.get(startKey);
    if (start?.owner !== owner) return;
    start.owner = undefined;
    start.claimUntil = 0;
  }

  /** Removes the starts of one user (`Store.forgetUser`). */
  forgetUser(externalUserId: string): void {
    for (const [key, start] of this.starts) {
      if (start.externalUserId === externalUserId) this.starts.delete(key);
    }
  }

  /** Drops starts whose claim lapsed and whose record is gone, and counts past their time. */
  purge(now: number): void {
    for (const [key, start] of this.starts) {
      const kept = start.recordKey !== undefined && this.records.isKept(start.recordKey);
      if (!kept && start.claimUntil <= now) this.starts.delete(key);
    }
    for (const [key, count] of this.counts) {
      if (count.expiresAt <= now) this.counts.delete(key);
    }
  }

  private countOf(key: string, now: number): number {
    const count = this.counts.get(key);
    return count && count.expiresAt > now ? count.count : 0;
  }

  private count(counter: StartCounter, now: number): number {
    const count = this.counts.get(counter.key);
    if (count && count.expiresAt > now) return ++count.count;
    this.counts.set(counter.key, { count: 1, expiresAt: now + counter.ttlMs });
    return 1;
  }
}
