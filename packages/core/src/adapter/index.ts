// For authors of framework adapters: the request pipeline every adapter runs, and the
// pieces adapters plug into it (body readers, answer writers), and nothing else: what the
// pipeline uses inside (the deferred Receiver, header reading, exact-text proofs, the
// system timers) stays internal. Applications import from `@faceverify/core`.

export type { HeadersLike } from '../webhook/headers.js';
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
export { type NodeRequestLike, nodeBodyTaken, readNodeBody } from './read-node-body.js';
export type { Timers } from './timers.js';
export {
  type BodyReader,
  type MiddlewareFunction,
  type VerificationWebhookFactory,
  webhookMiddleware,
} from './webhook-middleware.js';
export {
  createWebhookPipeline,
  DEFAULT_WEBHOOK_PATH,
  type WebhookExchange,
  type WebhookPipeline,
  type WebhookPipelineOptions,
} from './webhook-pipeline.js';
export { type ReceiverHolder, type WithReceiver, withReceiver } from './with-receiver.js';
