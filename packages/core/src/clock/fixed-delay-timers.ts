import type { Clock, TimerHandle } from './clock.js';

/** A callback waiting in `FixedDelayTimers`; pass it to `cancel`. */
export interface PendingTimer {
  readonly at: number;
  readonly callback: () => void;
}

/**
 * Many timers of one fixed delay on a single timer of `clock`: every webhook sets an
 * acknowledgement deadline and a lease renewal and almost always cancels both within
 * microseconds, and a platform timer for each (set, unref'd, cleared) costs more than much of
 * the rest of the request. Here a timer is an entry in an ordered set; the one clock timer is
 * set for the earliest entry and, when it fires, runs every entry due and is set again for the
 * next. Each callback still runs at its own time on the clock.
 *
 * @example
 * const acks = new FixedDelayTimers(clock, 5000);
 * const pending = acks.start(() => resolve('deadline'));
 * acks.cancel(pending);
 */
export class FixedDelayTimers {
  // Insertion order is due order while the clock does not go back; `fire` checks every entry
  // anyway, so one that a backward step put out of order is only as late as that step.
  private readonly pending = new Set<PendingTimer>();
  private handle: TimerHandle | undefined;
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly delayMs: number,
  ) {}

  /** Runs `callback` once after the delay, unless cancelled first. */
  start(callback: () => void): PendingTimer {
    const timer: PendingTimer = { at: this.clock.now() + this.delayMs, callback };
    this.pending.add(timer);
    if (timer.at < this.armedFor) this.arm(timer.at);
    return timer;
  }

  cancel(timer: PendingTimer): void {
    this.pending.delete(timer);
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
    const due: PendingTimer[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const timer of this.pending) {
      if (timer.at <= now) due.push(timer);
      else if (timer.at < next) next = timer.at;
    }
    for (const timer of due) this.pending.delete(timer);
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
    for (const timer of due) timer.callback();
  };
}
