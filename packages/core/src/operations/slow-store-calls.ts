import type { ActivityWindow } from './activity-window.js';

/**
 * The store calls past `storeSlowMs` that still wait: while there is one, the store is slow
 * now (`health().reasons` has `store_slow`); each counts toward the `store_slow` alarm when it
 * passes the threshold, and stays `recent` for the window once it answered.
 */
export class SlowStoreCalls {
  private waiting = 0;

  constructor(
    private readonly activity: ActivityWindow,
    private readonly storeSlowMs: number,
  ) {}

  /** Slow store calls still unanswered now. */
  get stillWaiting(): number {
    return this.waiting;
  }

  /** A call to `method` passed `storeSlowMs` unanswered; the function returned ends it. */
  readonly began = (method: string): (() => void) => {
    this.waiting += 1;
    this.activity.record(
      'store_slow',
      `store.${method}() had not answered after ${this.storeSlowMs} ms`,
    );
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.waiting -= 1;
    };
  };
}
