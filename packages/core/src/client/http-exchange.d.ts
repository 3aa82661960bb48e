// The one contract of `#http-exchange`. package.json `imports` picks an implementation per
// runtime (http-exchange-node.ts with node:http and node:https on Node, http-exchange-web.ts
// with `fetch` elsewhere) and gives TypeScript this file, so callers are type-checked against
// what both provide, and each implementation is checked against it with `satisfies`.
//
// The exchange's shape is `HttpExchange` of exchange.ts, stated here again rather than
// imported: a declaration file that imports a source file drags it into every tool that reads
// the package's declarations (the API report). The two are checked against each other where
// the client takes `defaultExchange()` as an `HttpExchange`.

/**
 * The runtime's own way to send one request and read its whole answer: what the client uses
 * when it is given no `fetch`. Throws `ConfigurationError` when the runtime has none.
 */
export declare function defaultExchange(): (request: {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | undefined;
  signal: AbortSignal;
}) => Promise<{ status: number; headers: { get(name: string): string | null }; text: string }>;
