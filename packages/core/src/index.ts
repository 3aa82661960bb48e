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
export { parseVerificationPayload, validateVerificationPayload } from './payload/parse.js';
export type { VerificationPayload, VerificationStatus } from './payload/types.js';
export type { AlarmCode, ReceiverAlert } from './receiver/alarms.js';
export {
  type ConfirmedSession,
  createReceiver,
  type Receiver,
  type StartedVerification,
} from './receiver/create-receiver.js';
export {
  createDeadLetters,
  type DeadLetter,
  type DeadLetterList,
  type DeadLetters,
  type ListDeadLetterOptions,
} from './receiver/dead-letters.js';
export type {
  HandlerContext,
  ReceiverErrorContext,
  ReceiverEventMap,
  ReceiverEventName,
  ReportedEvent,
  VerificationCompletedEvent,
  VerificationExpiredEvent,
  VerificationUndeliverableEvent,
} from './receiver/events.js';
export type { HandlerOptions } from './receiver/handler-registry.js';
export type { HeadersLike } from './receiver/headers.js';
export type { ReceiverHealth, StoreBacklog } from './receiver/health.js';
export type { ReceiverErrorCode, ReceiverResponse } from './receiver/http-response.js';
export type { ReceiverOptions } from './receiver/options.js';
export { SIGNATURE_HEADER, type WebhookRequest } from './receiver/receive-webhook.js';
export {
  type EventStreamTarget,
  type ResultEventsOptions,
  resultEvents,
  sendResultEvents,
} from './receiver/result-events.js';
export { type ReturnPageOptions, returnPage } from './receiver/return-page.js';
export type { WaitedResult, WaitForResultOptions } from './receiver/wait-for-result.js';
export type { LabeledSecret, WebhookSecrets } from './signature/secrets.js';
export { matchSignature, type SecretMatch, sign, verify } from './signature/verify.js';
export { verifyWebhook } from './signature/verify-webhook.js';
export { MemoryStore } from './store/memory-store.js';
// The type of `ReceiverOptions.store`; the records a Store keeps are in `@faceverify/core/store`.
export type { Store } from './store/store.js';
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
export type { SweepReport } from './tracker/sweep.js';
