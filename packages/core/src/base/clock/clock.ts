/** An opaque handle of a timer set through a `Clock`. */
export type TimerHandle = unknown;

/**
 * Time and timers, in one place, so that everything the Receiver and the client decide by
 * time can be driven by a test clock (`createTestClock()` from `@faceverify/core/testing`)
 * instead of waiting: lease hand-over, pacing, retries, the acknowledgement deadline.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Optional: milliseconds from an arbitrary origin that only ever advance at the rate of
   * real time (`performance.now()`), unmoved by NTP steps or a changed wall clock. Used to
   * carry the store's time forward between readings (`storeClock`); without it, `now()`.
   */
  monotonic?(): number;
  /**
   * `true` for a clock whose time a test moves (`createTestClock()`): it follows no real
   * clock, so leases and due times follow it alone, not the store's (`storeClock`). Any other
   * clock follows real time, however it reads it, and keeps the store's clock protecting its
   * leases, and `clock_skew` watching it.
   */
  readonly movedByTest?: boolean;
  /** Calls `callback` once after `ms`. A timer never keeps a process alive on its own. */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `Date.now` and the platform's timers, unref'd where the platform can. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, ms);
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** Resolves after `ms` on `clock`. */
export function sleepOn(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => {
    clock.setTimeout(resolve, ms);
  });
}
