import type { ReceiverOptions } from '@faceverify/core';

type Clock = NonNullable<ReceiverOptions['clock']>;

/** The system's timers with a `now` that a test moves forward at will (retry times, leases). */
export function shiftedClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return {
    // Its time is the test's to move: leases follow it, not PostgreSQL's clock.
    movedByTest: true,
    now: () => Date.now() + offset,
    setTimeout(callback: () => void, ms: number) {
      const handle = setTimeout(callback, ms);
      handle.unref();
      return handle;
    },
    clearTimeout(handle: unknown) {
      clearTimeout(handle as NodeJS.Timeout);
    },
    advance(ms: number) {
      offset += ms;
    },
  };
}
