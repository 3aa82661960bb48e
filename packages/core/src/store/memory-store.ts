import { MinHeap } from './min-heap.js';
import {
  type AttachOutcome,
  isOpen,
  type SettleUpdate,
  type Store,
  type StoredResult,
  type TrackedSession,
  type TrackedState,
} from './store.js';

interface Entry {
  at: number;
  key: string;
}

interface Stored extends TrackedSession {
  purgeAt?: number;
}

function copy(record: Stored): TrackedSession {
  const { purgeAt: _purgeAt, ...session } = record;
  return {
    ...session,
    ...(record.result ? { result: { ...record.result } } : {}),
    ...(record.lease ? { lease: { ...record.lease } } : {}),
  };
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
  private readonly byUser = new Map<string, Set<string>>();
  private readonly digests = new Map<string, number>();
  // Due times and expiry times are indexed by heaps with lazy deletion: an entry whose time
  // no longer matches its record is stale and dropped when it surfaces. A sweep therefore
  // costs in proportion to the due records, not to everything tracked.
  private readonly due = new MinHeap<Entry>();
  private readonly recordExpiries = new MinHeap<Entry>();
  private readonly digestExpiries = new MinHeap<Entry>();

  async insert(session: TrackedSession): Promise<boolean> {
    if (this.records.has(session.key)) return false;
    const record: Stored = copy(session);
    this.records.set(record.key, record);
    let keys = this.byUser.get(record.externalUserId);
    if (!keys) {
      keys = new Set();
      this.byUser.set(record.externalUserId, keys);
    }
    keys.add(record.key);
    // A record inserted with a live lease becomes due when the lease ends, as leasing would.
    if (isOpen(record.state))
      this.schedule(record, Math.max(record.dueAt, record.lease?.until ?? 0));
    return true;
  }

  async get(key: string): Promise<TrackedSession | undefined> {
    this.purge(Date.now());
    const record = this.records.get(key);
    return record && copy(record);
  }

  async findByUser(externalUserId: string): Promise<TrackedSession[]> {
    this.purge(Date.now());
    const keys = this.byUser.get(externalUserId);
    if (!keys) return [];
    return [...keys].map((key) => copy(this.records.get(key)!));
  }

  async remember(digest: string, ttlMs: number, now: number): Promise<boolean> {
    this.purge(now);
    const until = this.digests.get(digest);
    if (until !== undefined && until > now) return false;
    this.digests.set(digest, now + ttlMs);
    this.digestExpiries.push({ at: now + ttlMs, key: digest });
    return true;
  }

  async forget(digest: string): Promise<void> {
    this.digests.delete(digest);
  }

  async attachResult(key: string, result: StoredResult, now: number): Promise<AttachOutcome> {
    this.purge(now);
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

  async lease(
    key: string,
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<TrackedSession | undefined> {
    this.purge(now);
    const record = this.records.get(key);
    if (!record || !isOpen(record.state)) return undefined;
    if (this.isLeased(record, now) && record.lease?.owner !== owner) return undefined;
    return this.grant(record, owner, now + leaseMs);
  }

  async leaseDue(
    now: number,
    limit: number,
    owner: string,
    leaseMs: number,
  ): Promise<TrackedSession[]> {
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

  async settle(key: string, owner: string, update: SettleUpdate, now: number): Promise<boolean> {
    this.purge(now);
    const record = this.records.get(key);
    if (!record || !isOpen(record.state) || record.lease?.owner !== owner) return false;
    delete record.lease;
    if (!('dueAt' in update)) {
      record.state = update.state;
      if (update.result && !record.result) record.result = { ...update.result };
      record.purgeAt = now + update.retainMs;
      this.recordExpiries.push({ at: record.purgeAt, key });
      return true;
    }
    if (update.result && !record.result) record.result = { ...update.result };
    record.attempts = update.attempts;
    if (record.result && update.state === 'pending') {
      record.state = 'delivering';
      this.schedule(record, now);
    } else {
      record.state = update.state;
      this.schedule(record, update.dueAt);
    }
    return true;
  }

  async counts(): Promise<Record<TrackedState, number>> {
    this.purge(Date.now());
    const counts: Record<TrackedState, number> = {
      pending: 0,
      delivering: 0,
      completed: 0,
      expired: 0,
    };
    for (const record of this.records.values()) counts[record.state] += 1;
    return counts;
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
    // Rescheduling leaves stale entries behind; compact before they outnumber live ones.
    if (this.due.size > 2 * this.records.size + 1024) {
      this.due.filter((entry) => {
        const current = this.records.get(entry.key);
        return current !== undefined && isOpen(current.state) && current.dueAt === entry.at;
      });
    }
  }

  private purge(now: number): void {
    for (let entry = this.recordExpiries.peek(); entry && entry.at <= now; ) {
      this.recordExpiries.pop();
      const record = this.records.get(entry.key);
      if (record && record.purgeAt === entry.at) {
        this.records.delete(entry.key);
        const keys = this.byUser.get(record.externalUserId);
        keys?.delete(entry.key);
        if (keys?.size === 0) this.byUser.delete(record.externalUserId);
      }
      entry = this.recordExpiries.peek();
    }
    for (let entry = this.digestExpiries.peek(); entry && entry.at <= now; ) {
      this.digestExpiries.pop();
      if (this.digests.get(entry.key) === entry.at) this.digests.delete(entry.key);
      entry = this.digestExpiries.peek();
    }
  }
}
