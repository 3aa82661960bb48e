import type { VerificationCompletedEvent } from './events.js';
import { jsonHeaders, type ReceiverResponse } from './http-response.js';

/**
 * Every way a correctly signed `verification.completed` webhook can end, and the one answer
 * each gets. `receiveWebhook` decides the outcome; this table alone decides what is answered,
 * and docs/guarantees.md and the tests read it row by row.
 */
export const WEBHOOK_OUTCOMES = {
  /** Handlers ran and succeeded, and the result is recorded. */
  delivered: { status: 200, body: { received: true } },
  /** This result was already delivered (same body, or the same outcome of a closed session). */
  duplicate: { status: 200, body: { received: true, duplicate: true } },
  /** A signed event other than `verification.completed`: nothing to do. */
  ignored: { status: 200, body: { received: true, ignored: true } },
  /**
   * No open session this Receiver tracks matches it, and `untrackedWebhooks` is `'ignore'`:
   * reported as `webhook_untracked`, never delivered (it may be an old result sent again).
   */
  untracked: { status: 200, body: { received: true, untracked: true } },
  /** The service says otherwise about the matched session: reported, never delivered. */
  contradicted: { status: 200, body: { received: true, contradicted: true } },
  /** Handlers still run after `ackAfterMs`; they finish in the background. */
  processing: { status: 202, body: { received: true, processing: true } },
  /**
   * Stored, and delivered later by whoever holds it: another worker (a poll in flight), or
   * the next sweep when the service's confirmation could not be had now (a `429`).
   */
  queued: { status: 202, body: { received: true, queued: true } },
  /** Several open sessions of this user: each is polled, and the service's answers delivered. */
  settling: { status: 202, body: { received: true, settling: true } },
  /** A handler failed: the result is stored and delivered again (`maxDeliveryAttempts`). */
  handler_failed: {
    status: 500,
    body: {
      error: 'handler_failed',
      message:
        'A verification.completed handler failed. The verified result is stored and will be delivered again.',
    },
  },
} as const satisfies Record<string, { status: number; body: Record<string, unknown> }>;

/** An outcome of a correctly signed webhook (a row of {@link WEBHOOK_OUTCOMES}). */
export type WebhookOutcome = keyof typeof WEBHOOK_OUTCOMES;

// The bodies are fixed, so each is serialized once.
const BODIES = Object.fromEntries(
  Object.entries(WEBHOOK_OUTCOMES).map(([outcome, row]) => [outcome, JSON.stringify(row.body)]),
) as Record<WebhookOutcome, string>;

/** The answer to `outcome`, carrying the event delivered (or still being delivered), if any. */
export function answerOutcome(
  outcome: WebhookOutcome,
  event?: VerificationCompletedEvent,
): ReceiverResponse {
  const answer: ReceiverResponse = {
    status: WEBHOOK_OUTCOMES[outcome].status,
    headers: jsonHeaders(),
    body: BODIES[outcome],
  };
  if (event) answer.event = event;
  return answer;
}

const OUTCOME_OF_BODY = new Map(
  Object.entries(BODIES).map(([outcome, body]) => [body, outcome as WebhookOutcome]),
);

/**
 * What an answer was, for metrics: the outcome of a fixed body, or the `error` code of an
 * error answer. Error answers are few and small, so reading them back costs little.
 */
export function answerName(answer: ReceiverResponse): string {
  const outcome = OUTCOME_OF_BODY.get(answer.body);
  if (outcome) return outcome;
  try {
    const { error } = JSON.parse(answer.body) as { error?: unknown };
    return typeof error === 'string' ? error : 'unknown';
  } catch {
    return 'unknown';
  }
}
