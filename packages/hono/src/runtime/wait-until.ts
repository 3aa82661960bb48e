import type { Context } from 'hono';

/**
 * `waitUntil` of the platform's execution context (Cloudflare Workers), so handlers still
 * running when the webhook is acknowledged are not cut off. The context is read only when
 * work outlives the response: Hono throws (building an Error) on every read where the
 * runtime has none (Node, Bun, Deno), and there the process outlives the response anyway.
 */
export function waitUntilOf(c: Context): (promise: Promise<unknown>) => void {
  return (promise) => {
    let executionCtx: Context['executionCtx'];
    try {
      executionCtx = c.executionCtx;
    } catch {
      return;
    }
    executionCtx.waitUntil(promise);
  };
}
