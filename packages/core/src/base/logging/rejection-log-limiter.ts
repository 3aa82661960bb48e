import type { Log } from './logger.js';

/** Default length of one logging interval: one minute. */
export const REJECTION_LOG_INTERVAL_MS = 60_000;

interface Window {
  startedAt: number;
  suppressed: number;
}

/**
 * Writes warnings about rejected requests without letting a flood of them flood the log:
 * the first rejection of a kind (its message) in an interval is written in full, the rest of
 * that interval are only counted, and the count is written with the next rejection after
 * the interval ("…and 99 999 more in the 60 s that followed"). Nothing runs in the
 * background, so it works where timers do not outlive a request (Workers); the clock is
 * injected, so tests move time by hand.
 *
 * @example
 * const rejected = new RejectionLogLimiter(log, Date.now);
 * rejected.warn('Webhook rejected: no X-Webhook-Signature header.');
 */
export class RejectionLogLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly log: Log,
    private readonly now: () => number,
    private readonly intervalMs: number = REJECTION_LOG_INTERVAL_MS,
  ) {}

  warn(message: string, fields: Record<string, unknown> = {}): void {
    const now = this.now();
    const window = this.windows.get(message);
    if (window !== undefined && now - window.startedAt < this.intervalMs) {
      window.suppressed += 1;
      return;
    }
    if (window !== undefined && window.suppressed > 0) {
      this.log.warn(
        `${message} …and ${window.suppressed} more rejected in the ${this.intervalMs / 1000} s after that line, not logged one by one.`,
        { suppressed: window.suppressed, intervalMs: this.intervalMs },
      );
    }
    this.windows.set(message, { startedAt: now, suppressed: 0 });
    this.log.warn(message, fields);
  }
}

// One limiter per Receiver; a Receiver is known here by its Log, which lives as long as it.
const limiters = new WeakMap<Log, RejectionLogLimiter>();

/** The limiter of the Receiver whose log is `log`, created on first use. */
export function rejectionLog(log: Log, now: () => number): RejectionLogLimiter {
  let limiter = limiters.get(log);
  if (limiter === undefined) {
    limiter = new RejectionLogLimiter(log, now);
    limiters.set(log, limiter);
  }
  return limiter;
}
