export { exactTextBytes, type TextProof } from './adapter/exact-text-bytes.js';
export { rawBodyErrorAnswer } from './adapter/raw-body-error.js';
export { type LimitedRead, readLimited } from './adapter/read-limited.js';
export { toReceiver } from './adapter/to-receiver.js';
export {
  DEFAULT_WEBHOOK_PATH,
  setUpWebhookMiddleware,
  type WebhookMiddlewareOptions,
  type WebhookMiddlewareSetup,
  type WithReceiver,
  withReceiver,
} from './adapter/webhook-middleware.js';
export * from './client/index.js';
export * from './errors.js';
export {
  type FetchFrontImageOptions,
  type FrontImage,
  fetchFrontImage,
  IMAGE_URL_LIFETIME_MS,
} from './image/fetch-front-image.js';
export { ImageFetchError, type ImageFetchFailure } from './image/image-fetch-error.js';
export type { Logger } from './logging/logger.js';
export { parseVerificationPayload, validateVerificationPayload } from './payload/parse.js';
export type { VerificationPayload, VerificationStatus } from './payload/types.js';
export {
  type ConfirmedSession,
  createReceiver,
  type Receiver,
  type RejectReason,
  type StartedVerification,
} from './receiver/create-receiver.js';
export type {
  ReceiverErrorContext,
  ReceiverEventMap,
  ReceiverEventName,
  VerificationCompletedEvent,
  VerificationExpiredEvent,
} from './receiver/events.js';
export type { HeadersLike } from './receiver/headers.js';
export { readHeader } from './receiver/headers.js';
export type { ReceiverErrorCode, ReceiverResponse } from './receiver/http-response.js';
export type { ReceiverOptions } from './receiver/options.js';
export { SIGNATURE_HEADER, type WebhookRequest } from './receiver/receive-webhook.js';
export type { LabeledSecret, WebhookSecrets } from './signature/secrets.js';
export { matchSignature, type SecretMatch, sign, verify } from './signature/verify.js';
export { verifyWebhook } from './signature/verify-webhook.js';
export { MemoryStore } from './store/memory-store.js';
export type {
  AttachOutcome,
  AttachResultOptions,
  ClosedState,
  CountsOptions,
  FindByUserOptions,
  ForgetOptions,
  GetOptions,
  InsertOptions,
  InsertOutcome,
  Lease,
  LeaseDueOptions,
  LeaseOptions,
  OpenState,
  RememberOptions,
  SettledWith,
  SettleOptions,
  SettleUpdate,
  Store,
  StoredResult,
  TrackedSession,
  TrackedState,
  TransactionalStore,
  TransactionOf,
} from './store/store.js';
export type { SweepReport } from './tracker/sweep.js';
