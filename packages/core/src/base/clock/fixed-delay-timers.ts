import type { Clock, TimerHandle } from './clock.js';

/** A callback waiting in `FixedDelayTimers`; pass it to `cancel`. */
export interface PendingTimer {
  readonly at: number;
}

interface Entry extends PendingTimer {
  /** `undefined` once cancelled or run: a settled entry holds nothing of its request. */
  callback: (() => void) | undefined;
  previous: Entry | undefined;
  next: Entry | undefined;
}

/**
 * Many timers of one fixed delay on a single timer of `clock`: every webhook sets an
 * acknowledgement deadline and a lease renewal and almost always cancels both within
 * microseconds, and a platform timer for each (set, unref'd, cleared) costs more than much of
 * the rest of the request. Here a timer is an entry in a list in start order, which is due
 * order (kept on the monotonic clock where there is one, so a wall clock stepped back by NTP
 * cannot hold lease renewals back); the one clock timer is set for the earliest entry
 * and, when it fires, runs every entry due and is set again for the next. Each callback still
 * runs at its own time on the clock.
 *
 * Cancelling unlinks the entry at once, so it dies young: an entry left in a queue behind a
 * request still in flight would outlive a garbage collection or two, be copied and promoted,
 * and make V8 grow the young generation (the server's memory) for nothing.
 *
 * @example
 * const acks = new FixedDelayTimers(clock, 5000);
 * const pending = acks.start(() => resolve('deadline'));
 * acks.cancel(pending);
 */
export class FixedDelayTimers {
  private first: Entry | undefined;
  private last: Entry | undefined;
  private live = 0;
  private handle: TimerHandle | undefined;
  private armedFor = Number.POSITIVE_INFINITY;

  // Elapsed time: the monotonic clock where the Clock has one, else its wall clock.
  private readonly elapsed: () => number;

  constructor(
    private readonly clock: Clock,
    private readonly delayMs: number,
  ) {
    // Bound, not wrapped: a start reads it with no call of ours in between.
    this.elapsed = (clock.monotonic ?? clock.now).bind(clock);
  }

  /** Timers started and neither cancelled nor run yet. */
  get held(): number {
    return this.live;
  }

  /** Runs `callback` once after the delay, unless cancelled first. */
  start(callback: () => void): PendingTimer {
    const timer: Entry = {
      at: this.elapsed() + this.delayMs,
      callback,
      previous: this.last,
      next: undefined,
    };
    if (this.last) this.last.next = timer;
    else this.first = timer;
    this.last = timer;
    this.live += 1;
    if (timer.at < this.armedFor) this.arm(timer.at);
    return timer;
  }

  /**
   * Cancels a timer not run yet: its entry leaves the list at once, holding nothing of its
   * request. A timer cancelled or run already is left as it is.
   */
  cancel(timer: PendingTimer): void {
    const entry = timer as Entry;
    if (entry.callback === undefined) return;
    entry.callback = undefined;
    const { previous, next } = entry;
    if (previous) previous.next = next;
    else this.first = next;
    if (next) next.previous = previous;
    else this.last = previous;
    entry.previous = undefined;
    entry.next = undefined;
    this.live -= 1;
  }

  private arm(at: number): void {
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.armedFor = at;
    this.handle = this.clock.setTimeout(this.fire, Math.max(0, at - this.elapsed()));
  }

  private readonly fire = (): void => {
    this.handle = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    const now = this.elapsed();
    const due: Array<() => void> = [];
    let next = Number.POSITIVE_INFINITY;
    // Every entry is checked: one that a backward clock step put out of order is only as late
    // as that step.
    for (let entry = this.first; entry !== undefined; ) {
      const following = entry.next;
      if (entry.at <= now) {
        due.push(entry.callback!);
        // Out of the list as a cancelled one is: it runs once, from `due`.
        this.cancel(entry);
      } else if (entry.at < next) {
        next = entry.at;
      }
      entry = following;
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
    for (const callback of due) callback();
  };
}
