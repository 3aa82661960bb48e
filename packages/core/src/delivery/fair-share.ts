import type { TrackedSession } from '../store/store.js';

/**
 * The order a sweep works its leased sessions in, fair across accounts: each account's
 * sessions in turn, and at most its share of the workers at once (the workers divided among
 * the accounts with work left, at least one each), so one account whose service calls hang
 * or crawl holds no more than its share while the others' results go on. With one account
 * (or none) it is the order leased, every worker free to take the next.
 */
export class FairShare {
  private readonly queues = new Map<string, TrackedSession[]>();
  private readonly inFlight = new Map<string, number>();
  private turn = 0;
  private waiting: Array<() => void> = [];

  constructor(
    sessions: readonly TrackedSession[],
    private readonly workers: number,
  ) {
    for (const session of sessions) {
      const account = session.account ?? '';
      const queue = this.queues.get(account);
      if (queue) queue.push(session);
      else this.queues.set(account, [session]);
    }
  }

  /**
   * The next session a worker may take, waiting while every account with work left already
   * has its share in flight; `undefined` once every session was handed out.
   */
  async take(): Promise<TrackedSession | undefined> {
    for (;;) {
      if (this.queues.size === 0) return undefined;
      const taken = this.pick();
      if (taken) return taken;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** A worker finished `session`: its account's share is free for the next. */
  done(session: TrackedSession): void {
    const account = session.account ?? '';
    this.inFlight.set(account, (this.inFlight.get(account) ?? 1) - 1);
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }

  private pick(): TrackedSession | undefined {
    const accounts = [...this.queues.keys()];
    const share = Math.max(1, Math.ceil(this.workers / accounts.length));
    for (let step = 0; step < accounts.length; step++) {
      const account = accounts[(this.turn + step) % accounts.length]!;
      const running = this.inFlight.get(account) ?? 0;
      if (running >= share) continue;
      const queue = this.queues.get(account)!;
      const session = queue.shift()!;
      if (queue.length === 0) this.queues.delete(account);
      this.inFlight.set(account, running + 1);
      this.turn = (this.turn + step + 1) % Math.max(1, accounts.length);
      return session;
    }
    return undefined;
  }
}
