import type { VerificationPayload } from '../payload/types.js';

/** A verification result, from the webhook or from polling, delivered to your handlers. */
export interface VerificationCompletedEvent {
  type: 'verification.completed';
  /**
   * Stable identity of this result: the same on every delivery attempt, from webhook or
   * poll. Use it to make handlers idempotent, e.g. as a unique key in your database.
   */
  id: string;
  /** How the result reached faceverify: the signed webhook, or the polling fallback. */
  source: 'webhook' | 'poll';
  /** The hosted session token, when the result was matched to a tracked session. */
  sessionToken?: string;
  /** When faceverify first received this result. */
  receivedAt: Date;
  /** The payload with its wire names (`external_user_id`, `livenessPassed`, ...). */
  data: VerificationPayload;
  /** 1 for the first attempt; higher when earlier handler runs failed. */
  attempt: number;
  /** Label of the secret that verified a webhook (useful during a rotation). */
  secretLabel?: string;
}

/** A tracked session that never completed within its lifetime. Emitted once. */
export interface VerificationExpiredEvent {
  type: 'verification.expired';
  sessionToken: string;
  externalUserId: string;
  createdAt: Date;
  expiredAt: Date;
}

/** Where an error reported to `error` handlers happened. */
export interface ReceiverErrorContext {
  stage: 'handler' | 'poll' | 'store' | 'expired-handler';
  sessionToken?: string;
  event?: VerificationCompletedEvent | VerificationExpiredEvent;
}

export interface ReceiverEventMap {
  'verification.completed': (event: VerificationCompletedEvent) => void | Promise<void>;
  'verification.expired': (event: VerificationExpiredEvent) => void | Promise<void>;
  error: (error: unknown, context: ReceiverErrorContext) => void;
}

export type ReceiverEventName = keyof ReceiverEventMap;
