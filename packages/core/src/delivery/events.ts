import type { ReceiverAlert } from '../operations/alarms.js';
import type { FrontImageState } from '../wire/payload/front-image-lifetime.js';
import type { VerificationPayload } from '../wire/payload/types.js';

/** A verification result, from the webhook or from polling, delivered to your handlers. */
export interface VerificationCompletedEvent {
  type: 'verification.completed';
  /**
   * Stable identity of this result: the same on every delivery attempt, from webhook or
   * poll, and when a dead letter is delivered again. Use it to make handlers idempotent,
   * e.g. as a unique key in your database.
   */
  id: string;
  /** How the result reached faceverify: the signed webhook, or the polling fallback. */
  source: 'webhook' | 'poll';
  /**
   * The account the session is of, on a Receiver of several accounts (`accounts`); absent
   * otherwise. The same `data.external_user_id` in two accounts is two users.
   */
  account?: string;
  /** The hosted session token, when the result was matched to a tracked session. */
  sessionToken?: string;
  /** When faceverify first received this result. */
  receivedAt: Date;
  /**
   * The payload with its wire names (`external_user_id`, `livenessPassed`, ...).
   * `frontImageUrl` is `''` when this delivery has no live link (see `frontImage`).
   */
  data: VerificationPayload;
  /**
   * Whether `data.frontImageUrl` still works: `live` until `expiresAt`; `expired` when this
   * delivery came after the link's 15 minutes (a retry, a dead letter delivered again);
   * `removed` for a dead letter delivered again within them (a result given up keeps no
   * link). `receiver.confirm(sessionToken)` asks the service for a fresh one while it still
   * knows the session.
   *
   * @example
   * if (event.frontImage.state === 'live') await archive(await fetchFrontImage(event, { allowedHosts }));
   */
  frontImage: FrontImageState;
  /** 1 for the first attempt; higher when earlier handler runs failed. */
  attempt: number;
  /** Label of the secret that verified a webhook (useful during a rotation). */
  secretLabel?: string;
  /**
   * `true` when the result is known to be the result of a session this Receiver tracks:
   * it came from the service (`source: 'poll'`), or the service confirmed the webhook
   * (`confirmWebhooks`), or the webhook named the session.
   *
   * `false` for a signed webhook no tracked session vouches for: delivered only with
   * `untrackedWebhooks: 'deliver'` (or without an API client), or matched by
   * `external_user_id` alone with `confirmWebhooks: false`. A signed body stays valid
   * forever, so such an event may be an old result sent again after the replay memory
   * forgot it, under another `id`: never let it override a confirmed result.
   */
  confirmed: boolean;
  /**
   * When the session this result is of was started (tracked by `startVerification` or
   * `track`); absent for a result matched to no tracked session. Results of one user compare
   * by it: a later start is a newer session.
   */
  sessionStartedAt?: Date;
  /**
   * `true` when the same user (of the same account) started a newer session than this
   * result's, as far as the store still knows: this result is no longer the user's latest
   * word. Apps where "the newest session decides" ignore it, or let the Receiver skip it
   * (`supersededResults: 'skip'`). Known while the newer session's record is kept: open, and
   * `replayWindowMs` after it closed (docs/guarantees.md, "Superseded results"). Always
   * `false` for a result matched to no tracked session (it has no `sessionStartedAt`).
   */
  superseded: boolean;
}

/**
 * A result the handlers never saw because the same user started a newer session
 * (`supersededResults: 'skip'`): recorded as done, never retried, never a dead letter.
 * Emitted once, so that an app can audit what it did not act on.
 */
export interface VerificationSupersededEvent {
  type: 'verification.superseded';
  /** The event the `verification.completed` handlers would have received (`superseded: true`). */
  event: VerificationCompletedEvent;
}

/**
 * A tracked session given up without a result. Emitted once:
 * - `lifetime`: it did not complete within `sessionLifetimeMs`;
 * - `not_found`: the service no longer knows the token;
 * - `displaced`: the user started more than `maxOpenPerUser` sessions; the oldest went.
 */
export interface VerificationExpiredEvent {
  type: 'verification.expired';
  reason: 'lifetime' | 'not_found' | 'displaced';
  /** The account the session is of, on a Receiver of several accounts. */
  account?: string;
  sessionToken: string;
  externalUserId: string;
  createdAt: Date;
  expiredAt: Date;
}

/**
 * A result whose handlers failed on every one of `maxDeliveryAttempts` attempts, or an
 * undelivered result displaced by newer ones of the same user. It is not retried again. One
 * given up after its attempts stays in the store as a dead letter for the replay window:
 * `receiver.deadLetters` (or `faceverify dead-letters`) delivers it again once the handler is
 * fixed. A displaced one is not kept: store it somewhere you will look to replay it by hand.
 */
export interface VerificationUndeliverableEvent {
  type: 'verification.undeliverable';
  reason: 'attempts_exhausted' | 'displaced';
  /** The event the handlers failed on. */
  event: VerificationCompletedEvent;
  /** The last handler error, when there was one. */
  error?: unknown;
}

/** Where an error reported to `error` handlers happened. */
export interface ReceiverErrorContext {
  stage:
    | 'handler'
    | 'poll'
    | 'store'
    | 'expired-handler'
    | 'undeliverable-handler'
    | 'superseded-handler'
    | 'confirm'
    | 'account'
    | 'internal';
  /**
   * A short prefix of the session token, enough to find the session in logs and no
   * credential: a full token of a pending session could complete it.
   */
  tokenId?: string;
  /** `event.id` of the result concerned, when there is one. */
  eventId?: string;
  /** The account concerned, on a Receiver of several accounts. */
  account?: string;
  /** Why the error was reported, when it has a code (`webhook_contradicted`, ...). */
  code?: string;
  /**
   * The event concerned, without what is a credential: no `sessionToken` (use `tokenId`),
   * and `data.frontImageUrl` without its signed query.
   */
  event?: ReportedEvent;
}

/** An event as error contexts carry it: its credentials removed. */
export type ReportedEvent =
  | Omit<VerificationCompletedEvent, 'sessionToken'>
  | Omit<VerificationExpiredEvent, 'sessionToken'>;

/** What a `verification.completed` handler gets besides the event. */
export interface HandlerContext<Transaction = never> {
  /**
   * The store's open transaction, for a handler registered with `{ transactional: true }`
   * on a transactional store (e.g. `PostgresStore`): writes made through it commit together
   * with the record of this delivery, or not at all. `undefined` for other handlers.
   */
  transaction: [Transaction] extends [never] ? undefined : Transaction | undefined;
}

export interface ReceiverEventMap<Transaction = never> {
  'verification.completed': (
    event: VerificationCompletedEvent,
    context: HandlerContext<Transaction>,
  ) => void | Promise<void>;
  'verification.expired': (event: VerificationExpiredEvent) => void | Promise<void>;
  'verification.undeliverable': (event: VerificationUndeliverableEvent) => void | Promise<void>;
  /** A superseded result not handed to the handlers (`supersededResults: 'skip'`). */
  'verification.superseded': (event: VerificationSupersededEvent) => void | Promise<void>;
  error: (error: unknown, context: ReceiverErrorContext) => void;
  /**
   * A situation an operator must act on (a secret that does not match the service's, a
   * body parser mounted first, webhooks that never arrive, a failing handler or store),
   * raised at most once per 15 minutes per code; also logged at error level.
   */
  alert: (alert: ReceiverAlert) => void;
}

export type ReceiverEventName = keyof ReceiverEventMap;
