/** The outcome of counting one request against a limit. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the window after this one. */
  remaining: number;
  /** When refused: milliseconds until a request is allowed again; otherwise 0. */
  retryAfterMs: number;
}

/**
 * A sliding-window limit: a request is allowed when fewer than `limit` requests of the same
 * key were allowed in the last `windowMs`. Each allowed request's time is kept, so the window
 * slides with every request instead of resetting at fixed boundaries. Refused requests are not
 * counted, so a client that keeps trying is let through as soon as the window allows.
 */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();
  private lastSweep: number;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {
    this.lastSweep = now();
  }

  /** Counts one request of `key` if it is allowed. */
  take(key: string): RateLimitDecision {
    const now = this.now();
    this.sweep(now);
    const recent = this.recentHits(key, now);
    if (recent.length >= this.limit) {
      // The oldest hit in the window is the first to leave it and make room.
      const oldest = recent[recent.length - this.limit] ?? now;
      return {
        allowed: false,
        limit: this.limit,
        remaining: 0,
        retryAfterMs: Math.max(1, oldest + this.windowMs - now),
      };
    }
    recent.push(now);
    this.hits.set(key, recent);
    return {
      allowed: true,
      limit: this.limit,
      remaining: this.limit - recent.length,
      retryAfterMs: 0,
    };
  }

  private recentHits(key: string, now: number): number[] {
    const start = now - this.windowMs;
    return (this.hits.get(key) ?? []).filter((time) => time > start);
  }

  /** Forgets keys with no hit left in the window, at most once per window, to bound memory. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    const start = now - this.windowMs;
    for (const [key, times] of this.hits) {
      if ((times[times.length - 1] ?? 0) <= start) this.hits.delete(key);
    }
  }
}
