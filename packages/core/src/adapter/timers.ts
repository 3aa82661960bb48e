/**
 * The timer functions the webhook pipeline schedules its body deadline with. Tests pass
 * their own to decide a deadline without waiting for it; runtimes use the global ones.
 */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The runtime's own `setTimeout` and `clearTimeout`. */
export const systemTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
};
