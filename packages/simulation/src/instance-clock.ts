import type { Clock } from '@faceverify/core';
import type { Scheduler } from './scheduler.js';

/**
 * The clock of one simulated process: true time plus its own offset (a skewed clock), running
 * a little fast or slow (a drifting one), and timers that die with the process.
 */
export interface InstanceClock extends Clock {
  /** Ends every timer of this process: it was killed or stopped. */
  halt(): void;
  /** Moves this clock by `ms` at once (an NTP step); its timers keep their true times. */
  step(ms: number): void;
}

export function instanceClock(
  scheduler: Scheduler,
  initialOffsetMs: number,
  /** How fast this machine's clock runs off true time, in parts per million (+: fast). */
  driftPpm = 0,
  /** The true time the offset is counted from: the drift has run since. */
  since = scheduler.now(),
): InstanceClock {
  let halted = false;
  let offsetMs = initialOffsetMs;
  const rate = 1 + driftPpm / 1_000_000;
  const drifted = () => since + (scheduler.now() - since) * rate;
  const handles = new Set<number>();
  return {
    now: () => drifted() + offsetMs,
    // A step moves the wall clock, never the monotonic one; a drift moves both, and the
    // timers with them.
    monotonic: drifted,
    setTimeout(callback, ms) {
      const handle: number = scheduler.after(Math.max(0, ms) / rate, () => {
        handles.delete(handle);
        if (!halted) callback();
      });
      handles.add(handle);
      return handle;
    },
    clearTimeout(handle) {
      if (typeof handle !== 'number') return;
      handles.delete(handle);
      scheduler.cancel(handle);
    },
    step(ms) {
      offsetMs += ms;
    },
    halt() {
      halted = true;
      for (const handle of handles) scheduler.cancel(handle);
      handles.clear();
    },
  };
}
