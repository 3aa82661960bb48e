/**
 * A platform execution context: Cloudflare Workers' `ctx`, Vercel's and Netlify's. Other
 * second arguments of a Fetch handler (Next.js passes `{ params }`) have no `waitUntil`.
 */
export interface ExecutionContextLike {
  waitUntil?(promise: Promise<unknown>): void;
}

/**
 * A `waitUntil` that looks up the platform's execution context only when work outlives
 * the response, so handlers still running when the webhook is acknowledged are not cut
 * off. `getContext` may throw or return nothing where the runtime has no context (Hono
 * throws on Node, Bun and Deno, where the process outlives the response anyway); then the
 * work simply goes on. For adapter authors.
 *
 * @example
 * const waitUntil = lazyWaitUntil(() => c.executionCtx);
 */
export function lazyWaitUntil(
  getContext: () => ExecutionContextLike | undefined,
): (promise: Promise<unknown>) => void {
  return (promise) => {
    let context: ExecutionContextLike | undefined;
    try {
      context = getContext();
    } catch {
      return;
    }
    context?.waitUntil?.(promise);
  };
}
