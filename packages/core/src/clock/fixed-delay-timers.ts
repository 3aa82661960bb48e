import type { Clock, TimerHandle } from './clock.js';

/** A callback waiting in `FixedDelayTimers`; pass it to `cancel`. */
export interface PendingTimer {
  readonly at: number;
}

interface Entry extends PendingTimer {
  /** `undefined` once cancelled or run: a cancelled entry holds nothing of its request. */
  callback: (() => void) | undefined;
}

// Cancelled entries left behind a live one are dropped once they outnumber the live ones.
const COMPACT_AFTER = 1024;

/**
 * Many timers of one fixed delay on a single timer of `clock`: every webhook sets an
 * acknowledgement deadline and a lease renewal and almost always cancels both within
 * microseconds, and a platform timer for each (set, unref'd, cleared) costs more than much of
 * the rest of the request. Here a timer is an entry in a queue in start order, which is due
 * order while the clock does not go back; the one clock timer is set for the earliest entry
 * and, when it fires, runs every entry due and is set again for the next. Each callback still
 * runs at its own time on the clock.
 *
 * Cancelling only marks the entry: the queue drops cancelled entries from its front as it
 * goes, so the common case (each timer cancelled soon after it started) allocates nothing
 * but the entry. A Set emptied and refilled for every request reallocates its table.
 *
 * @example
 * const acks = new FixedDelayTimers(clock, 5000);
 * const pending = acks.start(() => resolve('deadline'));
 * acks.cancel(pending);
 */
export class FixedDelayTimers {
  private queue: Entry[] = [];
  private head = 0;
  private live = 0;
  private handle: TimerHandle | undefined;
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly delayMs: number,
  ) {}

  /** Entries held, cancelled ones not yet dropped included: bounded by the live ones. */
  get held(): number {
    return this.queue.length - this.head;
  }

  /** Runs `callback` once after the delay, unless cancelled first. */
  start(callback: () => void): PendingTimer {
    const timer: Entry = { at: this.clock.now() + this.delayMs, callback };
    this.queue.push(timer);
    this.live += 1;
    if (timer.at < this.armedFor) this.arm(timer.at);
    return timer;
  }

  cancel(timer: PendingTimer): void {
    const entry = timer as Entry;
    if (entry.callback === undefined) return;
    entry.callback = undefined;
    this.live -= 1;
    this.dropSettled();
  }

  /** Drops cancelled entries from the front, and compacts when many sit behind a live one. */
  private dropSettled(): void {
    const { queue } = this;
    while (this.head < queue.length && queue[this.head]!.callback === undefined) this.head += 1;
    if (this.head === queue.length) {
      queue.length = 0;
      this.head = 0;
    } else if (queue.length - this.head > 2 * this.live + COMPACT_AFTER) {
      this.queue = queue.slice(this.head).filter((entry) => entry.callback !== undefined);
      this.head = 0;
    }
  }

  private arm(at: number): void {
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.armedFor = at;
    this.handle = this.clock.setTimeout(this.fire, Math.max(0, at - this.clock.now()));
  }

  private readonly fire = (): void => {
    this.handle = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    const due: Array<() => void> = [];
    const waiting: Entry[] = [];
    let next = Number.POSITIVE_INFINITY;
    // Every entry is checked: one that a backward clock step put out of order is only as late
    // as that step.
    for (let index = this.head; index < this.queue.length; index++) {
      const entry = this.queue[index]!;
      const { callback } = entry;
      if (callback === undefined) continue;
      if (entry.at <= now) {
        entry.callback = undefined;
        due.push(callback);
      } else {
        waiting.push(entry);
        if (entry.at < next) next = entry.at;
      }
    }
    this.queue = waiting;
    this.head = 0;
    this.live = waiting.length;
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
    for (const callback of due) callback();
  };
}
