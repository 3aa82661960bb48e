/**
 * For authors of framework adapters, and nothing else: one way to build an adapter
 * (`webhookMiddleware`, which runs the request pipeline every adapter shares) and the pieces
 * adapters plug into it (body readers, answer writers). What the pipeline uses inside (the
 * pipeline itself, the deferred Receiver, header reading, exact-text proofs, its timers) stays
 * internal. Applications import from `@faceverify/core`.
 *
 * @module @faceverify/core/adapter
 */

// Each name says who uses it and why; a name no adapter needs, and no exported signature
// names, is not exported (`node scripts/core-shape.mjs` counts them).

export {
  // What `readLimited` resolves.
  type LimitedRead,
  // The emulator: a web stream read up to a limit.
  readLimited,
} from '../wire/read-limited.js';
export {
  // What a body reader resolves: the exact bytes, or why not (Express's and Hono's readers).
  type BodyRead,
  // Express: bytes a body parser kept (its `verify` capture) are used only when provably sent.
  bytesAsSent,
  // Koa and Hono: text a body parser kept is turned back into bytes only when provably sent.
  textAsSent,
  // Hono: the read of a body cached by an earlier middleware that failed.
  UNREADABLE_BODY,
} from './body-read.js';
// Fetch and Hono: the Receiver's answer as a Fetch `Response`.
export { toFetchResponse } from './fetch-response.js';
export {
  // What `lazyWaitUntil`'s argument returns: a Workers `ctx`, where there is one.
  type ExecutionContextLike,
  // Fetch and Hono: handlers outlive the response on Workers (`ctx.waitUntil`).
  lazyWaitUntil,
} from './lazy-wait-until.js';
export {
  // The type of the `raw-body` package's function, which `rawBodyReader` takes.
  type GetRawBody,
  // The type of `nodeBodyTaken`'s request: Node's `IncomingMessage`, or what looks like it.
  type NodeRequestLike,
  // The type of `writeNodeAnswer`'s response: Node's `ServerResponse`, or what looks like it.
  type NodeResponseLike,
  // Express, Koa and Fastify: a body a parser mounted first consumed, told from one unread.
  nodeBodyTaken,
  // The options `rawBodyReader` passes to that function.
  type RawBodyOptions,
  // Express, Koa and Fastify: Node bodies read with `raw-body`, within the limit and deadline.
  rawBodyReader,
  // Express: the answer written on Node's response (closing the connection when asked).
  writeNodeAnswer,
} from './node-http.js';
export {
  // Fetch and Hono: a body `Bun.serve` parsed is read without a web stream.
  bunServedOf,
  // What `nodeIncomingOf` returns.
  type NodeIncomingLike,
  // Fetch and Hono: a request `@hono/node-server` took from Node's parser (its headers as read).
  nodeIncomingOf,
  // Fetch and Hono: a `Request`'s exact body, within the limit and deadline.
  readFetchBody,
  // What `bunServedOf` returns and `readFetchBody` takes: a request a server parsed.
  type ServerParsed,
} from './read-fetch-body.js';
export {
  // The bound of `webhookMiddleware`'s middleware: any framework's middleware function.
  type MiddlewareFunction,
  // What `webhookMiddleware` returns: an adapter's `verificationWebhook()`.
  type VerificationWebhookFactory,
  // What `webhookMiddleware` hands an adapter's middleware to call for each request.
  type WebhookHandler,
  // Every adapter (Express, Koa, Hono, Fastify, Fetch) is built with it.
  webhookMiddleware,
} from './webhook-middleware.js';
export {
  // Fastify's route and the conformance suite: where adapters listen when given no path.
  DEFAULT_WEBHOOK_PATH,
  // The options every adapter's `verificationWebhook()` shares (the bound of its own).
  type WebhookPipelineOptions,
} from './webhook-pipeline.js';
export type {
  // What a platform's `readBody` returns (`readFetchBody`, `rawBodyReader`'s reader).
  BodyReading,
  // What each adapter describes once and gives `webhookMiddleware`: its framework.
  WebhookPlatform,
} from './webhook-platform.js';
// Every adapter's middleware type: the framework's middleware, its Receiver and `.on()`.
export type { WithReceiver } from './with-receiver.js';
