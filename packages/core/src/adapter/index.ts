/**
 * For authors of framework adapters, and nothing else: one way to build an adapter
 * (`webhookMiddleware`, which runs the request pipeline every adapter shares) and the pieces
 * adapters plug into it (body readers, answer writers). What the pipeline uses inside (the
 * pipeline itself, the deferred Receiver, header reading, exact-text proofs) stays internal.
 * Applications import from `@faceverify/core`.
 *
 * @module @faceverify/core/adapter
 */

export { type BodyRead, bytesAsSent, textAsSent } from './body-read.js';
export { toFetchResponse } from './fetch-response.js';
export { type ExecutionContextLike, lazyWaitUntil } from './lazy-wait-until.js';
export { type NodeResponseLike, writeNodeAnswer } from './node-answer.js';
export { type GetRawBody, type RawBodyOptions, rawBodyReader } from './raw-body-reader.js';
export {
  bunServedOf,
  type NodeIncomingLike,
  nodeIncomingOf,
  readFetchBody,
  type ServerParsed,
  UNREADABLE_BODY,
} from './read-fetch-body.js';
export { type LimitedRead, readLimited } from './read-limited.js';
export { type NodeRequestLike, nodeBodyTaken } from './read-node-body.js';
export type { Timers } from './timers.js';
export {
  type BodyReader,
  type MiddlewareFunction,
  type VerificationWebhookFactory,
  webhookMiddleware,
} from './webhook-middleware.js';
export {
  DEFAULT_WEBHOOK_PATH,
  type WebhookExchange,
  type WebhookPipelineOptions,
} from './webhook-pipeline.js';
export type { WithReceiver } from './with-receiver.js';
