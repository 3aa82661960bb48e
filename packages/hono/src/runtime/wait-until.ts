import type { Context } from 'hono';

/**
 * `waitUntil` of the platform's execution context (Cloudflare Workers), so handlers still
 * running when the webhook is acknowledged are not cut off. Hono throws when a runtime has
 * no execution context (Node, Bun, Deno): there the process outlives the response anyway.
 */
export function waitUntilOf(c: Context): ((promise: Promise<unknown>) => void) | undefined {
  let executionCtx: Context['executionCtx'];
  try {
    executionCtx = c.executionCtx;
  } catch {
    return undefined;
  }
  return (promise) => executionCtx.waitUntil(promise);
}
