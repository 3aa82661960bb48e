// The platform globals the doc snippets use (scripts/check-doc-snippets.mjs), shaped as the
// platforms' own types declare them (@cloudflare/workers-types and `wrangler types`, Bun's,
// Deno's), reduced to what the snippets touch: the repository installs none of those runtimes.

/** A Worker's context (@cloudflare/workers-types). */
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  readonly props: unknown;
}

/** A Worker's bindings, as `wrangler types` writes them for a Worker with this secret. */
declare namespace Cloudflare {
  interface Env {
    FACEVERIFY_WEBHOOK_SECRET: string;
  }
}

declare module 'cloudflare:workers' {
  export const env: Cloudflare.Env;
}

type FetchHandler = (request: Request) => Response | Promise<Response>;

declare namespace Bun {
  function serve(options: {
    port?: number;
    routes?: Record<string, FetchHandler>;
    fetch: FetchHandler;
  }): unknown;
}

declare namespace Deno {
  function serve(options: { port?: number }, handler: FetchHandler): unknown;
}

// Deno's `npm:` specifiers name the same packages.
declare module 'npm:@faceverify/core' {
  export * from '@faceverify/core';
}
declare module 'npm:@faceverify/hono' {
  export * from '@faceverify/hono';
}
declare module 'npm:@faceverify/fetch' {
  export * from '@faceverify/fetch';
}
declare module 'npm:hono@^4' {
  export * from 'hono';
}
