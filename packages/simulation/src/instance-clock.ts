import type { Clock } from '@faceverify/core';
import type { Scheduler } from './scheduler.js';

/**
 * The clock of one simulated process: true time plus its own offset (a skewed clock), and
 * timers that die with the process.
 */
export interface InstanceClock extends Clock {
  /** Ends every timer of this process: it was killed or stopped. */
  halt(): void;
  /** Moves this clock by `ms` at once (an NTP step); its timers keep their true times. */
  step(ms: number): void;
}

export function instanceClock(scheduler: Scheduler, initialOffsetMs: number): InstanceClock {
  let halted = false;
  let offsetMs = initialOffsetMs;
  const handles = new Set<number>();
  return {
    now: () => scheduler.now() + offsetMs,
    // True time: a step moves the wall clock, never the monotonic one.
    monotonic: () => scheduler.now(),
    setTimeout(callback, ms) {
      const handle: number = scheduler.after(Math.max(0, ms), () => {
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
