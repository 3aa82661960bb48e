import type { Context } from 'hono';

/**
 * The `429` answer, with exactly the body the interface specifies:
 * `{ "success": false, "message", "retry_after_ms" }`, plus a standard `Retry-After` header.
 */
export function rateLimitedResponse(c: Context, retryAfterMs: number): Response {
  c.header('Retry-After', String(Math.ceil(retryAfterMs / 1000)));
  return c.json(
    {
      success: false,
      message: `Rate limit exceeded. Retry after ${retryAfterMs} ms.`,
      retry_after_ms: retryAfterMs,
    },
    429,
  );
}
