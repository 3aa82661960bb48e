import type { Clock } from '../base/clock/clock.js';
import { ApiError, NetworkError, RateLimitError, TimeoutError } from '../base/errors.js';
import type { Log } from '../base/logging/logger.js';
import { delay } from './delay.js';

const BACKOFF_BASE_MS = 200;
const BACKOFF_CAP_MS = 5_000;
// The service's windows last one minute, so a longer wait is not a rate limit worth waiting
// out inside one call: it is thrown for the caller to schedule.
const MAX_RATE_LIMIT_WAIT_MS = 60_000;

/** How one call is retried. */
export interface RetryPolicy {
  /** The endpoint, for log lines. */
  endpoint: string;
  maxRetries: number;
  /** Whether network errors, timeouts and `5xx` may be retried: only for requests safe to resend. */
  resendable: boolean;
  signal: AbortSignal | undefined;
  log: Log;
  clock: Clock;
  /** Waits out a `429` before the next attempt; sleeping is the default. */
  waitAfterRateLimit?: (delayMs: number) => Promise<void>;
  /** `false` throws a `429` at once instead of retrying after it. Default `true`. */
  waitOutRateLimits?: boolean;
}

// A 429 means the request was not processed: wait what the service asked, plus a little
// jitter so that callers told the same time do not all return at the same instant.
function rateLimitDelay(retryAfterMs: number): number {
  return Math.round(retryAfterMs * (1.05 + Math.random() * 0.1));
}

// Exponential backoff with full jitter: a random wait up to the growing bound.
function backoffDelay(retry: number): number {
  return Math.round(Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry));
}

function isTransient(error: unknown): boolean {
  return (
    error instanceof NetworkError ||
    error instanceof TimeoutError ||
    (error instanceof ApiError && error.serviceStatus >= 500)
  );
}

/** The wait before retrying after `error`, or `undefined` when it must be thrown. */
function retryDelay(error: unknown, retry: number, policy: RetryPolicy): number | undefined {
  if (error instanceof RateLimitError) {
    return policy.waitOutRateLimits !== false && error.retryAfterMs <= MAX_RATE_LIMIT_WAIT_MS
      ? rateLimitDelay(error.retryAfterMs)
      : undefined;
  }
  return policy.resendable && isTransient(error) ? backoffDelay(retry) : undefined;
}

/**
 * Runs `attempt` and retries it at most `maxRetries` times: after a `429` once the wait it
 * asked for has passed, and after transient failures of resendable requests with backoff.
 * The last error is thrown as it is; the caller's abort ends everything at once.
 */
export async function withRetries<T>(attempt: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (policy.signal?.aborted || retry >= policy.maxRetries) throw error;
      const delayMs = retryDelay(error, retry, policy);
      if (delayMs === undefined) throw error;
      // Expected (a 429 waited out, a transient failure resent): debug. A request that fails
      // for good is thrown to the caller, who decides whether an operator must act.
      policy.log.debug('faceverify request retried', {
        endpoint: policy.endpoint,
        code: (error as { code?: unknown }).code,
        retry: retry + 1,
        delayMs,
      });
      if (error instanceof RateLimitError && policy.waitAfterRateLimit) {
        await policy.waitAfterRateLimit(delayMs);
      } else {
        await delay(policy.clock, delayMs, policy.signal);
      }
    }
  }
}
