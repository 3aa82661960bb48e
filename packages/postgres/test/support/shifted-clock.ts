import type { Clock } from '@faceverify/core';

/** The system's timers with a `now` that a test moves forward at will (retry times, leases). */
export function shiftedClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    setTimeout(callback, ms) {
      const handle = setTimeout(callback, ms);
      handle.unref();
      return handle;
    },
    clearTimeout(handle) {
      clearTimeout(handle as NodeJS.Timeout);
    },
    advance(ms) {
      offset += ms;
    },
  };
}
