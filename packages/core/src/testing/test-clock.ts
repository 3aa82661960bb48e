import type { Clock, TimerHandle } from '../base/clock/clock.js';

interface Timer {
  id: number;
  at: number;
  callback: () => void;
}

/** A clock that moves only when told, for tests that must not wait or race on real time. */
export interface TestClock extends Clock {
  /**
   * Moves time forward by `ms`, firing every timer that falls due, earliest first, each at
   * its own time. Between timers, work that is ready (resolved promises, finished I/O) runs.
   */
  advance(ms: number): Promise<void>;
  /** Timers set and not yet fired or cleared. */
  readonly pendingTimers: number;
}

// One macrotask turn: promise chains and I/O callbacks that are ready get to run.
const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * A manual clock for `createReceiver({ clock })` and `createClient({ clock })`: lease
 * hand-over, pacing, retries and deadlines happen when the test advances it, so a test
 * states an order of events instead of racing timers.
 *
 * @example
 * const clock = createTestClock();
 * const receiver = createReceiver({ clock, leaseMs: 1000 });
 * await clock.advance(1000); // every lease granted before has now passed
 */
export function createTestClock(start: number = Date.UTC(2030, 0, 1)): TestClock {
  let now = start;
  let nextId = 0;
  const timers: Timer[] = [];
  const due = (limit: number) =>
    timers.reduce<Timer | undefined>(
      (earliest, timer) =>
        timer.at <= limit && (!earliest || timer.at < earliest.at) ? timer : earliest,
      undefined,
    );
  return {
    movedByTest: true,
    now: () => now,
    setTimeout(callback, ms): TimerHandle {
      const timer = { id: ++nextId, at: now + Math.max(0, ms), callback };
      timers.push(timer);
      return timer.id;
    },
    clearTimeout(handle) {
      const index = timers.findIndex((timer) => timer.id === handle);
      if (index >= 0) timers.splice(index, 1);
    },
    get pendingTimers() {
      return timers.length;
    },
    async advance(ms) {
      const target = now + ms;
      await turn();
      for (let timer = due(target); timer; timer = due(target)) {
        timers.splice(timers.indexOf(timer), 1);
        now = Math.max(now, timer.at);
        timer.callback();
        await turn();
      }
      now = target;
      await turn();
    },
  };
}
