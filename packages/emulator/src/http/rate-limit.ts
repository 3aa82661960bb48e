import type { Context, MiddlewareHandler } from 'hono';
import type { SlidingWindowLimiter } from '../rate-limit/sliding-window.js';
import type { AppEnv } from './app-env.js';
import { rateLimitedResponse } from './rate-limited-response.js';

/**
 * Counts each request against `limiter` under the key `keyOf` gives, and refuses it with `429`
 * when over the limit. `X-RateLimit-Limit` and `X-RateLimit-Remaining` go on every answer, not
 * only refusals, so clients can pace themselves before they are refused.
 */
export function rateLimit(
  limiter: SlidingWindowLimiter,
  keyOf: (c: Context<AppEnv>) => string,
  onRefused: () => void,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const decision = limiter.take(keyOf(c));
    c.header('X-RateLimit-Limit', String(decision.limit));
    c.header('X-RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed) {
      onRefused();
      return rateLimitedResponse(c, decision.retryAfterMs);
    }
    await next();
  };
}
