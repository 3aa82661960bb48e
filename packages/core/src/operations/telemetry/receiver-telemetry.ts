import type { StoreBacklog, TrackedState } from '../../store/store.js';

/** The units of work the Receiver reports as spans. */
export type ReceiverSpanName = 'receive' | 'poll' | 'sweep' | 'confirm';

/**
 * Attributes the Receiver gives a span when its work ends. On a Receiver of several accounts,
 * a span of one account's work (`receive` once the request's account is known, `poll`)
 * carries `faceverify.account` (`ACCOUNT_ATTRIBUTE`): a telemetry records it or leaves it out
 * (`openTelemetry({ accountAttribute })`).
 */
export type ReceiverSpanAttributes = Record<string, string | number | boolean>;

/** The attribute naming the account of the work, on a Receiver of several accounts. */
export const ACCOUNT_ATTRIBUTE = 'faceverify.account';

/** How a result reached the handlers: its webhook, the Tracker's poll, or `confirm()`. */
export type DeliverySource = 'webhook' | 'poll' | 'confirm';

/**
 * What one `GET /v1/sessions/:token` came to: a result (`completed`), still `pending`,
 * `expired` or `not_found` at the service, `rate_limited` past what is waited out in the
 * call, or `failed` (network, timeout, `5xx`).
 */
export type PollRequestOutcome =
  | 'completed'
  | 'pending'
  | 'expired'
  | 'not_found'
  | 'rate_limited'
  | 'failed';

/**
 * What a `429` led to: `retried` after the wait, inside the same call, or `rescheduled`:
 * the session is polled again once the service's wait is over.
 */
export type RateLimitAction = 'retried' | 'rescheduled';

/** What the telemetry reads on its own schedule (a metrics scrape), for gauges. */
export interface TelemetrySource {
  /** The store's records by state, now. Rejects when the store is unreachable. */
  readCounts(): Promise<Record<TrackedState, number>>;
  /** The due backlog, now. Rejects when the store is unreachable. */
  readBacklog(): Promise<StoreBacklog>;
}

/**
 * Hooks the Receiver calls as it works, for metrics and traces. `openTelemetry()` from
 * `@faceverify/core/opentelemetry` builds them on `@opentelemetry/api`; a Receiver without
 * `telemetry` calls nothing and allocates nothing for it. Durations are in milliseconds of
 * the Receiver's clock. A hook must not throw: it runs inside the webhook pipeline.
 *
 * On a Receiver of several accounts, the hooks about one webhook or one session get its
 * `account` last: an account the Receiver has, never an id a request made up (a request to an
 * unknown account is answered with none). A Receiver of one account passes none.
 *
 * @example
 * import { openTelemetry } from '@faceverify/core/opentelemetry';
 * const receiver = createReceiver({ telemetry: openTelemetry() });
 */
export interface ReceiverTelemetry {
  /** Called once by `createReceiver`, with what gauges read. One telemetry per Receiver. */
  attach(source: TelemetrySource): void;
  /**
   * Runs `work` as the span `name`, active for everything `work` starts: handlers called
   * from it see the span as their parent. `describe` gives the span's attributes from the
   * result; a rejection of `work` is recorded on the span and passed on.
   */
  span<T>(
    name: ReceiverSpanName,
    work: () => Promise<T>,
    describe: (result: T) => ReceiverSpanAttributes,
  ): Promise<T>;
  /** A webhook request was answered `status`, with `answer` (an outcome or error code). */
  webhookAnswered(status: number, answer: string, account?: string): void;
  /** A result was delivered, `sinceStartMs` after its session started (or its webhook arrived). */
  delivered(source: DeliverySource, sinceStartMs: number, account?: string): void;
  /** The `verification.completed` handlers ran for `durationMs` and succeeded or threw. */
  handlerRan(durationMs: number, failed: boolean, account?: string): void;
  /** A result was given up (`verification.undeliverable`). */
  undeliverable(reason: 'attempts_exhausted' | 'displaced', account?: string): void;
  /**
   * Optional: a result whose user had started a newer session was settled without the
   * `verification.completed` handlers (`supersededResults: 'skip'`), found by `source`.
   */
  superseded?(source: DeliverySource, account?: string): void;
  /** One `GET /v1/sessions/:token` ended, `latencyMs` after it was asked for. */
  polled(outcome: PollRequestOutcome, latencyMs: number, account?: string): void;
  /** A `429` was waited out. */
  rateLimitWaited(action: RateLimitAction, account?: string): void;
}
