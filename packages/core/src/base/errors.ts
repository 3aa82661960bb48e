/**
 * What a store can raise an alarm about:
 * - `store_reset`: data the store held is gone (a restart without persistence, a flush, keys
 *   evicted under memory pressure). Results it tracked may arrive again as untracked
 *   webhooks, and sessions it was polling for are no longer polled.
 * - `store_eviction_risk`: the store's server may drop keys on its own (an eviction policy
 *   other than `noeviction`, or one the store could not read); nothing is lost yet.
 * - `store_rewound`: the store went back in time: a failover to a replica that was behind
 *   lost writes the old primary had acknowledged (recorded successes among them, so their
 *   results are handled again). Where a store can only tell that a failover happened and
 *   that acknowledged writes may have been lost, the message says exactly that.
 * - `store_unreplicated`: a write the store was asked to make durable on replicas (e.g.
 *   `RedisStore`'s `waitForReplicas`) was acknowledged by fewer replicas than asked within
 *   the timeout: it is recorded on the primary only, and a failover now could lose it.
 * - `token_key_missing`: a session's token is sealed under keys this instance does not list;
 *   the session is left to an instance that does (raised by the Receiver's token protection).
 * - `clock_skew`: this process's clock and the store's disagree by more than `maxClockSkewMs`;
 *   leases and due times follow the store's clock, so nothing runs twice, but the process's
 *   clock needs fixing (raised by the Receiver).
 */
export type StoreAlarmCode =
  | 'store_reset'
  | 'store_eviction_risk'
  | 'store_rewound'
  | 'store_unreplicated'
  | 'token_key_missing'
  | 'clock_skew';

/** Stable machine-readable codes of every error faceverify throws or answers with. */
export type FaceverifyErrorCode =
  | 'configuration_error'
  | 'signature_missing'
  | 'signature_invalid'
  | 'payload_invalid'
  | 'rate_limited'
  | 'api_error'
  | 'network_error'
  | 'timeout'
  | 'browser_refused'
  | 'image_error'
  | 'store_error'
  | 'start_limit_reached'
  /**
   * A `StoreAlarm`: each code is described there.
   */
  | StoreAlarmCode;

/** Base class of every faceverify error: `code` is stable and safe to switch on. */
export class FaceverifyError extends Error {
  readonly code: FaceverifyErrorCode;

  constructor(code: FaceverifyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Missing or contradictory configuration, raised at construction, never later as a 401. */
export class ConfigurationError extends FaceverifyError {
  constructor(message: string) {
    super('configuration_error', message);
  }
}

/** The `X-Webhook-Signature` header is missing or does not match the raw body. */
export class WebhookVerificationError extends FaceverifyError {
  constructor(code: 'signature_missing' | 'signature_invalid', message: string) {
    super(code, message);
  }
}

/** The body is correctly signed but is not a valid `verification.completed` payload. */
export class WebhookPayloadError extends FaceverifyError {
  /** The offending field, when one field is to blame. */
  readonly field: string | undefined;

  constructor(message: string, field?: string) {
    super('payload_invalid', message);
    this.field = field;
  }
}

/** Rate limits of the service, as reported by the `X-RateLimit-*` headers when present. */
export interface RateLimitInfo {
  limit?: number;
  remaining?: number;
}

/**
 * The service answered `429`: wait `retryAfterMs` before the next call. The service's status
 * is `serviceStatus`, never `status` or `statusCode`: Express and Koa would answer your own
 * caller with it from their error handlers.
 */
export class RateLimitError extends FaceverifyError {
  readonly serviceStatus = 429;
  readonly retryAfterMs: number;
  readonly rateLimit: RateLimitInfo;

  constructor(message: string, retryAfterMs: number, rateLimit: RateLimitInfo = {}) {
    super('rate_limited', message);
    this.retryAfterMs = retryAfterMs;
    this.rateLimit = rateLimit;
  }
}

/**
 * The service answered with an error status, `serviceStatus`. `body` is the parsed JSON body
 * when there was one. Named so that Express's and Koa's error handlers, which read
 * `status`, `statusCode` and `expose`, answer your own caller `500` rather than the
 * service's status (a `401` for a wrong API key is your server's fault, not your caller's).
 *
 * @example
 * if (error instanceof ApiError && error.serviceStatus === 404) return notFound();
 */
export class ApiError extends FaceverifyError {
  /** The HTTP status the faceverify service answered. */
  readonly serviceStatus: number;
  readonly body: unknown;

  constructor(
    message: string,
    status: number,
    body?: unknown,
    code: FaceverifyErrorCode = 'api_error',
  ) {
    super(code, message);
    this.serviceStatus = status;
    this.body = body;
  }
}

/** No response arrived: the connection was refused, reset or could not be opened. */
export class NetworkError extends FaceverifyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('network_error', message, options);
  }
}

/** No complete response arrived within the time allowed for one attempt. */
export class TimeoutError extends FaceverifyError {
  readonly timeoutMs: number;

  constructor(message: string, timeoutMs: number) {
    super('timeout', message);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * `startVerification` refused a start: the user (`scope: 'user'`) or the account
 * (`scope: 'account'`) started as many sessions today (a UTC day) as `starts` allows. Nothing
 * was sent to the service. Show the user something like "try again tomorrow"; `retryAt` is when
 * the count starts again. Its message is for you, not for the user: it names the option.
 *
 * @example
 * if (error instanceof StartLimitError) return res.status(429).json({ retryAt: error.retryAt });
 */
export class StartLimitError extends FaceverifyError {
  readonly scope: 'user' | 'account';
  /** The limit that was reached. */
  readonly limit: number;
  /** The start of the next UTC day, when the count starts again. */
  readonly retryAt: Date;

  constructor(message: string, scope: 'user' | 'account', limit: number, retryAt: Date) {
    super('start_limit_reached', message);
    this.scope = scope;
    this.limit = limit;
    this.retryAt = retryAt;
  }
}

/**
 * The API client was created in a browser. It is a `ConfigurationError` with its own code,
 * so that code which handles configuration problems as a group still catches it.
 */
export class BrowserRefusedError extends ConfigurationError {
  override readonly code = 'browser_refused';
}
