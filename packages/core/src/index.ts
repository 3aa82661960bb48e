// The application API: what an app that receives verification results uses. Adapter
// authors import from `@faceverify/core/adapter`, store authors from `@faceverify/core/store`,
// tests from `@faceverify/core/testing`.
export {
  type Client,
  type ClientOptions,
  type CreatedSession,
  type CreateSessionParams,
  createClient,
  type RequestOptions,
  type SessionReadOptions,
  type SessionSnapshot,
} from './client/index.js';
export { type Clock, systemClock, type TimerHandle } from './clock/clock.js';
export {
  createDeadLetters,
  type DeadLetter,
  type DeadLetterKeys,
  type DeadLetterList,
  type DeadLetters,
  type ListDeadLetterOptions,
  type SealedDeadLetter,
} from './delivery/dead-letters.js';
export type {
  HandlerContext,
  ReceiverErrorContext,
  ReceiverEventMap,
  ReceiverEventName,
  ReportedEvent,
  VerificationCompletedEvent,
  VerificationExpiredEvent,
  VerificationUndeliverableEvent,
} from './delivery/events.js';
export type { HandlerOptions } from './delivery/handler-registry.js';
export type { SweepReport } from './delivery/sweep.js';
export {
  ApiError,
  BrowserRefusedError,
  ConfigurationError,
  FaceverifyError,
  type FaceverifyErrorCode,
  NetworkError,
  RateLimitError,
  type RateLimitInfo,
  TimeoutError,
  WebhookPayloadError,
  WebhookVerificationError,
} from './errors.js';
export {
  type FetchFrontImageOptions,
  type FrontImage,
  fetchFrontImage,
  IMAGE_URL_LIFETIME_MS,
  RASTER_IMAGE_TYPES,
} from './image/fetch-front-image.js';
export { ImageFetchError, type ImageFetchFailure } from './image/image-fetch-error.js';
export type { Logger } from './logging/logger.js';
export type { AlarmCode, ReceiverAlert } from './operations/alarms.js';
export type { ReceiverHealth } from './operations/health.js';
export type { FrontImageState } from './payload/front-image-lifetime.js';
export { parseVerificationPayload, validateVerificationPayload } from './payload/parse.js';
export type { VerificationPayload, VerificationStatus } from './payload/types.js';
export {
  type ConfirmedSession,
  createReceiver,
  type Receiver,
  type StartedVerification,
} from './receiver/create-receiver.js';
export type { ReceiverOptions } from './receiver/options.js';
export {
  type EventStreamTarget,
  type ResultEventsOptions,
  resultEvents,
  sendResultEvents,
} from './results/result-events.js';
export { type ReturnPageOptions, returnPage } from './results/return-page.js';
export type { WaitedResult, WaitForResultOptions } from './results/wait-for-result.js';
export type { LabeledSecret, WebhookSecrets } from './signature/secrets.js';
export { matchSignature, type SecretMatch, sign, verify } from './signature/verify.js';
export { verifyWebhook } from './signature/verify-webhook.js';
export { MemoryStore } from './store/memory-store.js';
// The type of `ReceiverOptions.store`; the records a Store keeps are in `@faceverify/core/store`.
export type { Store, StoreBacklog } from './store/store.js';
export { StoreAlarm, type StoreAlarmCode } from './store/store-alarm.js';
export type {
  DeliverySource,
  PollRequestOutcome,
  RateLimitAction,
  ReceiverSpanAttributes,
  ReceiverSpanName,
  ReceiverTelemetry,
  TelemetrySource,
} from './telemetry/receiver-telemetry.js';
export type { HeadersLike } from './webhook/headers.js';
export { SIGNATURE_HEADER } from './webhook/headers.js';
export type { ReceiverErrorCode, ReceiverResponse } from './webhook/http-response.js';
export type { WebhookRequest } from './webhook/receive-webhook.js';
export type { UnreadBody } from './webhook/unread-body.js';
