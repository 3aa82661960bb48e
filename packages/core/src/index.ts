/**
 * What an app that receives verification results uses: the Receiver, the API client, the
 * signature and payload checks, and the stores that need no server. Adapter authors import from
 * `@faceverify/core/adapter`, store authors from `@faceverify/core/store`, tests from
 * `@faceverify/core/testing`.
 *
 * @module @faceverify/core
 */

// Each group says who needs it; a name nobody outside core uses is not exported
// (`node scripts/core-shape.mjs` counts them per entry).

// Several accounts of the service on one Receiver (`accounts` option): a map or a resolver.
export type { AccountConfig, AccountResolver, AccountsOption } from './accounts/accounts-option.js';
// A clock of the app's own (`clock` option), as tests and simulations inject.
export type { Clock, TimerHandle } from './base/clock/clock.js';
// Every error thrown or answered, by class, with its stable `.code`.
export {
  ApiError,
  BrowserRefusedError,
  ConfigurationError,
  FaceverifyError,
  type FaceverifyErrorCode,
  NetworkError,
  RateLimitError,
  type RateLimitInfo,
  StartLimitError,
  TimeoutError,
  WebhookPayloadError,
  WebhookVerificationError,
} from './base/errors.js';
// Logging, health and alarms, for the app's operations.
export type { Logger } from './base/logging/logger.js';
// The API client, alone or under a Receiver (`client` option), and its types.
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
// Dead letters: `receiver.deadLetters`, and `createDeadLetters` for operator tools that open a
// store without a Receiver (the CLI).
export {
  createDeadLetters,
  type DeadLetter,
  type DeadLetterKeys,
  type DeadLetterList,
  type DeadLetters,
  type ListDeadLetterOptions,
  type SealedDeadLetter,
} from './delivery/dead-letters.js';
// What handlers receive and what `error` handlers are told.
export type {
  HandlerContext,
  ReceiverErrorContext,
  ReceiverEventMap,
  ReceiverEventName,
  ReportedEvent,
  VerificationCompletedEvent,
  VerificationExpiredEvent,
  VerificationSupersededEvent,
  VerificationUndeliverableEvent,
} from './delivery/events.js';
export type { HandlerOptions } from './delivery/handler-registry.js';
export type { SweepReport } from './delivery/sweep.js';
// The face image of a result, fetched safely inside a handler.
export {
  type FetchFrontImageOptions,
  type FrontImage,
  fetchFrontImage,
  RASTER_IMAGE_TYPES,
} from './image/fetch-front-image.js';
export { ImageFetchError, type ImageFetchFailure } from './image/image-fetch-error.js';
export type { AlarmCode, ReceiverAlert } from './operations/alarms.js';
export {
  checkErasureRequest,
  type StoredRecordHead,
  type StoredRecordsCount,
  type TokenKeySources,
  tokenKeyIds,
} from './operations/forget-user.js';
export type { ReceiverHealth } from './operations/health.js';
// Telemetry of the app's own (`telemetry` option); `@faceverify/core/opentelemetry` builds one.
export type {
  DeliverySource,
  PollRequestOutcome,
  RateLimitAction,
  ReceiverSpanAttributes,
  ReceiverSpanName,
  ReceiverTelemetry,
  TelemetrySource,
} from './operations/telemetry/receiver-telemetry.js';
// The Receiver and its options.
export {
  type ConfirmedSession,
  type ConfirmOptions,
  createReceiver,
  type ForgetUserScope,
  type ForgottenUser,
  type HealthOptions,
  type Receiver,
  type StartVerificationParams,
  type TrackOptions,
} from './receiver/create-receiver.js';
export type { ReceiverOptions } from './receiver/options.js';
// The return page: the session's state, streamed or read once.
export {
  type EventStreamTarget,
  type ResultEventsOptions,
  resultEvents,
  sendResultEvents,
} from './receiver/results/result-events.js';
export { type ReturnPageOptions, returnPage } from './receiver/results/return-page.js';
export type { WaitedResult, WaitForResultOptions } from './receiver/results/wait-for-result.js';
// Starts: the session handed out again, and the limits of a day.
export type { StartedVerification } from './receiver/starts/session-starts.js';
export type { StartsOption } from './receiver/starts/starts-option.js';
export type { ReceiverErrorCode, ReceiverResponse } from './receiver/webhook/answers.js';
// A request handed to `receiver.receive()` by code of the app's own, and its answer.
export type { HeadersLike } from './receiver/webhook/headers.js';
export { SIGNATURE_HEADER } from './receiver/webhook/headers.js';
export type { WebhookRequest } from './receiver/webhook/receive-webhook.js';
export type { UnreadBody } from './receiver/webhook/unread-body.js';
// The default store, and the type of the `store` option.
export { MemoryStore } from './store/memory-store.js';
// `health().store.backlog`. The Store interface, for `ReceiverOptions.store` and stores of
// your own, has one entry: `@faceverify/core/store`.
export type { StoreBacklog } from './store/store.js';
export { StoreAlarm, type StoreAlarmCode } from './store/store-alarm.js';
// The payload, for code that handles requests without a Receiver; whether an event's image
// link still works.
export type { FrontImageState } from './wire/payload/front-image-lifetime.js';
export { parseVerificationPayload } from './wire/payload/parse.js';
export type { VerificationPayload, VerificationStatus } from './wire/payload/types.js';
// Signatures without a Receiver: verify (and sign, for tests of the app's own).
export type { LabeledSecret, WebhookSecrets } from './wire/signature/secrets.js';
export { matchSignature, type SecretMatch, sign, verify } from './wire/signature/verify.js';
export { verifyWebhook } from './wire/signature/verify-webhook.js';
