import type { Correlation } from '../../delivery/correlate.js';
import type { VerificationCompletedEvent } from '../../delivery/events.js';
import type { PollOutcome } from '../../delivery/poll-session.js';
import type { ActivityKind } from '../../operations/activity-window.js';
import type { AttachOutcome } from '../../store/store.js';
import { SIGNATURE_REFUSALS } from '../../wire/signature/refusals.js';
import type { UnreadBody } from './unread-body.js';

/** What `receive` answers; adapters write it back unchanged. */
export interface ReceiverResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * The event delivered while handling this request (`200`, or `202` when handlers are
   * still running). Adapters expose it to later middleware.
   */
  event?: VerificationCompletedEvent;
}

/** Where in the request's handling an answer is decided. */
export type AnswerStage =
  /** Before a byte of the body is trusted: its method, its size, whether it could be read. */
  | 'before the signature'
  /** The signature holds: the body is the service's. */
  | 'after the signature';

/** One row of {@link WEBHOOK_ANSWERS}. */
export interface AnswerRow {
  status: number;
  stage: AnswerStage;
  /** The body: fixed, or for an error, its `message` (`detail` fills what varies). */
  body: Record<string, unknown> | { error: string; message: string };
  /** Headers besides the JSON ones. */
  headers?: Record<string, string>;
  /**
   * Logged by the Receiver when answered: `warn` and `error` rows are rejections and
   * failures, logged at most once a minute per kind when a sender may repeat them at will
   * (`limited`), so that no stranger can fill the log. `{detail}` in a message is filled as
   * in the body, by a row whose detail is never request data.
   */
  log?:
    | { level: 'info' | 'warn' | 'error'; message: string; limited?: never }
    | { level: 'warn'; message: string; limited: true };
  /** What it counts toward in `health()` and the alarms (see ActivityWindow). */
  counts?: ActivityKind;
}

/**
 * Every answer to a request on the webhook path, one row each: status, body, log, counter.
 * `decideAnswer` (receive-webhook.ts) finds what happened, reading top to bottom;
 * {@link OUTCOME_ROWS} is the one place what happened becomes a row; `writeAnswer` writes
 * it, and the Receiver's telemetry counts it by its name. docs/guarantees.md and
 * docs/troubleshooting.md are checked against this table row by row.
 */
export const WEBHOOK_ANSWERS = {
  // A correctly signed `verification.completed` webhook ends in one of these.
  /**
   * Handlers ran and succeeded, and the result is recorded.
   */
  delivered: { status: 200, stage: 'after the signature', body: { received: true } },
  /**
   * This result was already delivered (same body, or the same outcome of a closed session).
   */
  duplicate: {
    status: 200,
    stage: 'after the signature',
    body: { received: true, duplicate: true },
  },
  /**
   * A signed event other than `verification.completed`: nothing to do.
   */
  ignored: {
    status: 200,
    stage: 'after the signature',
    body: { received: true, ignored: true },
    log: { level: 'info', message: 'Webhook with an unknown event acknowledged and ignored.' },
  },
  /**
   * No open session this Receiver tracks matches it, and `untrackedWebhooks` is `'ignore'`:
   * reported as `webhook_untracked`, never delivered (it may be an old result sent again).
   */
  untracked: {
    status: 200,
    stage: 'after the signature',
    body: { received: true, untracked: true },
    log: {
      level: 'warn',
      message:
        "A signed webhook matched no open session this Receiver tracks, so it was acknowledged and not delivered: it may be an old result sent again. If your sessions are started outside this Receiver, set untrackedWebhooks: 'deliver'.",
      limited: true,
    },
  },
  /**
   * The session's records were erased (`forgetUser`) while its result was on its way:
   * acknowledged, and delivered to nobody.
   */
  erased: {
    status: 200,
    stage: 'after the signature',
    body: { received: true, erased: true },
  },
  /**
   * Its user has started a newer session since, and `supersededResults` is `'skip'`: recorded
   * as done, passed to `verification.superseded` handlers, never to the handlers of results.
   */
  superseded: {
    status: 200,
    stage: 'after the signature',
    body: { received: true, superseded: true },
  },
  /**
   * The service says otherwise about the matched session: reported, never delivered.
   */
  contradicted: {
    status: 200,
    stage: 'after the signature',
    body: { received: true, contradicted: true },
  },
  /**
   * The work after the signature still runs after `ackAfterMs` (`{detail}` says which: the
   * handlers, or the service's confirmation before any handler); it finishes in the background.
   */
  processing: {
    status: 202,
    stage: 'after the signature',
    body: { received: true, processing: true },
    log: {
      level: 'warn',
      message: '{detail}; acknowledged with 202 to keep the sender.',
    },
  },
  /**
   * Stored, and delivered later by whoever holds it: another worker (a poll in flight), or
   * the next sweep when the service's confirmation could not be had now (a `429`).
   */
  queued: { status: 202, stage: 'after the signature', body: { received: true, queued: true } },
  /**
   * Several open sessions of this user: each is polled, and the service's answers delivered.
   */
  settling: {
    status: 202,
    stage: 'after the signature',
    body: { received: true, settling: true },
  },
  /**
   * A handler failed: the result is stored and delivered again (`maxDeliveryAttempts`).
   */
  handler_failed: {
    status: 500,
    stage: 'after the signature',
    body: {
      error: 'handler_failed',
      message:
        'A verification.completed handler failed. The verified result is stored and will be delivered again.',
    },
  },

  // Refused: nothing was handled.
  /**
   * Webhooks are POSTed; any other method is refused before its body is read.
   */
  method_not_allowed: {
    status: 405,
    stage: 'before the signature',
    body: { error: 'method_not_allowed', message: 'Webhooks are delivered with POST.' },
    headers: { allow: 'POST' },
  },
  /**
   * The body (or its declared length) is over `maxBodyBytes`; reading stops there.
   */
  payload_too_large: {
    status: 413,
    stage: 'before the signature',
    body: {
      error: 'payload_too_large',
      message:
        'The body is larger than {detail} bytes. Raise maxBodyBytes if the service sends larger webhooks.',
    },
  },
  /**
   * The body ended early or the connection was aborted.
   */
  body_unreadable: {
    status: 400,
    stage: 'before the signature',
    body: { error: 'body_unreadable', message: '{detail}' },
  },
  /**
   * The body took longer than `bodyTimeoutMs` to arrive; the connection is closed.
   */
  body_timeout: {
    status: 408,
    stage: 'before the signature',
    body: {
      error: 'body_timeout',
      message:
        'The request body did not arrive within {detail} ms (bodyTimeoutMs), so nothing was verified. Send the whole body promptly; a sender that retries will be accepted.',
    },
  },
  /**
   * A body parser consumed the body before the adapter: its signature cannot be checked.
   * The message carries the adapter's fix; the `raw_body_unavailable` alarm logs it once
   * the service's own traffic shows the fault.
   */
  raw_body_unavailable: {
    status: 500,
    stage: 'before the signature',
    body: {
      error: 'raw_body_unavailable',
      message:
        'The raw request body is not available, so its signature cannot be checked. {detail}',
    },
  },
  /**
   * The configuration is missing: the server log names the setting to add.
   */
  receiver_not_configured: {
    status: 500,
    stage: 'before the signature',
    body: {
      error: 'receiver_not_configured',
      message: 'The webhook receiver is not configured; the server log names the setting to add.',
    },
    // Written by the adapter, which has no Receiver: `{detail}` is the ConfigurationError's
    // message, which names what to set (by default on the console, even with `logger: false`).
    log: { level: 'error', message: 'Webhook not received: {detail}' },
  },
  /**
   * The Receiver serves several accounts (`accounts`) and the request names none: the
   * adapter was mounted where no `:account` route parameter (nor its `account` option) gives
   * one. A setup mistake, logged with the fix.
   */
  account_missing: {
    status: 500,
    stage: 'before the signature',
    body: {
      error: 'account_missing',
      message:
        'This receiver serves several accounts and the request names none; the server log says how to mount it.',
    },
    log: {
      level: 'error',
      message:
        'A webhook arrived without an account, but the Receiver serves several (the accounts option). Mount the webhook on a route with an :account parameter (app.post("/webhooks/verification/:account", ...)) and give each account that URL as its callback URL, or pass the adapter an account function that reads it from the request.',
    },
  },
  /**
   * The request names an account this Receiver does not know (or a malformed id): nothing
   * was verified, and no stranger's request counts toward health.
   */
  account_unknown: {
    status: 404,
    stage: 'before the signature',
    body: {
      error: 'account_unknown',
      message:
        'No account of this receiver has this id. Check the account id in the callback URL set in the service Settings.',
    },
    log: {
      level: 'warn',
      message: 'Webhook refused: it names no account this Receiver knows.',
      limited: true,
    },
  },
  /**
   * The account could not be resolved now: the resolver failed, or this minute's budget of
   * resolver calls for ids not cached is spent (`accounts.maxResolvesPerMinute`). Nothing
   * was verified; the polling fallback recovers the result of a session started with the
   * account.
   */
  account_unavailable: {
    status: 503,
    stage: 'before the signature',
    body: {
      error: 'account_unavailable',
      message:
        'The account could not be resolved now, so nothing was verified. The receiver polls for the results of the sessions it started.',
    },
    headers: { 'retry-after': '60' },
    log: {
      level: 'warn',
      message:
        'Webhook refused: its account could not be resolved now (the resolver failed, or accounts.maxResolvesPerMinute was reached).',
      limited: true,
    },
  },
  /**
   * No `X-Webhook-Signature` header.
   */
  signature_missing: {
    status: 401,
    stage: 'before the signature',
    body: { error: 'signature_missing', message: SIGNATURE_REFUSALS.signature_missing as string },
    log: {
      level: 'warn',
      message: 'Webhook rejected: no X-Webhook-Signature header.',
      limited: true,
    },
    counts: 'signature_missing',
  },
  /**
   * The signature matches the exact body under no configured secret.
   */
  signature_invalid: {
    status: 401,
    stage: 'before the signature',
    body: { error: 'signature_invalid', message: SIGNATURE_REFUSALS.signature_invalid as string },
    log: {
      level: 'warn',
      message:
        'Webhook rejected: signature does not match the raw body. Check FACEVERIFY_WEBHOOK_SECRET (or the secret option) against the signing secret in the service Settings, and that nothing rewrites the body before verification (a body parser mounted first).',
      limited: true,
    },
    counts: 'signature_invalid',
  },
  /**
   * Correctly signed, but not a valid `verification.completed` payload.
   */
  payload_invalid: {
    status: 400,
    stage: 'after the signature',
    body: { error: 'payload_invalid', message: '{detail}' },
    log: { level: 'warn', message: 'Webhook rejected: correctly signed but invalid payload.' },
    counts: 'payload_invalid',
  },
  /**
   * The store failed: the webhook was not handled (polling recovers its result).
   */
  store_unavailable: {
    status: 503,
    stage: 'after the signature',
    body: {
      error: 'store_unavailable',
      message:
        'The webhook could not be stored; it was not handled. Check the store (e.g. Redis) connection.',
    },
    log: { level: 'error', message: 'The store failed while accepting a webhook.' },
    counts: 'store_unavailable',
  },
  /**
   * A defect: anything else that failed.
   */
  internal_error: {
    status: 500,
    stage: 'after the signature',
    body: { error: 'internal_error', message: 'The webhook could not be processed.' },
    log: { level: 'error', message: 'Unexpected error while receiving a webhook.' },
  },
} as const satisfies Record<string, AnswerRow>;

/** The name of an answer: a row of {@link WEBHOOK_ANSWERS}. */
export type AnswerName = keyof typeof WEBHOOK_ANSWERS;

/**
 * What happened to a request, in the words of the step that saw it: the decision's helpers
 * return these, and only {@link OUTCOME_ROWS} turns them into rows.
 */
export type Outcome =
  // The request, before its signature holds (receive-webhook.ts, account-context.ts).
  | 'not-post'
  | 'no-account'
  | 'unknown-account'
  | 'resolver-failed'
  | 'busy'
  | UnreadBody['kind']
  | 'unsigned'
  | 'bad-signature'
  // The adapter's, while no Receiver can be built from its options (deferred-receiver.ts).
  | 'not-configured'
  // The body is the service's: what it holds, and whether it was seen before.
  | 'other-event'
  | 'invalid-payload'
  | 'replayed'
  | 'store-failed'
  // Correlation with the user's sessions (correlate.ts), and what was done about it.
  | Extract<Correlation['kind'], 'duplicate' | 'ambiguous'>
  | 'untracked'
  // The store's word on the session: closed, or already given a result; held by another worker.
  | Exclude<AttachOutcome, 'attached' | 'missing'>
  | 'held'
  // Delivery and the service's confirmation (deliver.ts, poll-session.ts).
  | PollOutcome['outcome']
  | 'contradicted'
  // Handlers still ran when `ackAfterMs` passed.
  | 'ack-deadline'
  // Anything else that threw: a defect.
  | 'defect';

/**
 * The row each outcome is answered with: the one place the decision's outcomes become
 * answers. The compiler holds it to every outcome, each once.
 */
export const OUTCOME_ROWS: { readonly [outcome in Outcome]: AnswerName } = {
  'not-post': 'method_not_allowed',
  'no-account': 'account_missing',
  'unknown-account': 'account_unknown',
  // The resolver failed, or this minute's budget of resolver calls is spent.
  'resolver-failed': 'account_unavailable',
  busy: 'account_unavailable',
  // A body the adapter could not read as sent (UnreadBody), or one over `maxBodyBytes`.
  'too-large': 'payload_too_large',
  unavailable: 'raw_body_unavailable',
  unreadable: 'body_unreadable',
  timeout: 'body_timeout',
  unsigned: 'signature_missing',
  'bad-signature': 'signature_invalid',
  'not-configured': 'receiver_not_configured',
  'other-event': 'ignored',
  'invalid-payload': 'payload_invalid',
  replayed: 'duplicate',
  'store-failed': 'store_unavailable',
  // A closed session of this user had the same outcome: its result already came.
  duplicate: 'duplicate',
  // Several open sessions of the user: each is polled.
  ambiguous: 'settling',
  untracked: 'untracked',
  closed: 'duplicate',
  'already-attached': 'duplicate',
  // Another worker holds the session (a poll in flight): it delivers the stored result.
  held: 'queued',
  delivered: 'delivered',
  failed: 'handler_failed',
  // The session went to another worker, or the service could not be asked now: the result
  // is stored, and its next holder delivers it.
  'lease-lost': 'queued',
  // The user's records were erased meanwhile: nobody delivers it.
  erased: 'erased',
  // A newer session of the user decides (`supersededResults: 'skip'`).
  superseded: 'superseded',
  'retry-later': 'queued',
  pending: 'queued',
  left: 'queued',
  // A webhook's session the service ended (or never knew): the webhook is not its result.
  expired: 'contradicted',
  contradicted: 'contradicted',
  'ack-deadline': 'processing',
  defect: 'internal_error',
};

/** Error codes of the Receiver's JSON answers, each documented in docs/troubleshooting.md. */
export type ReceiverErrorCode =
  | 'method_not_allowed'
  | 'account_missing'
  | 'account_unknown'
  | 'account_unavailable'
  | 'payload_too_large'
  | 'signature_missing'
  | 'signature_invalid'
  | 'payload_invalid'
  | 'handler_failed'
  | 'raw_body_unavailable'
  | 'receiver_not_configured'
  | 'body_unreadable'
  | 'body_timeout'
  | 'store_unavailable'
  | 'internal_error';

// The codes above are the table's, no more and no fewer: the build fails otherwise.
type TableCodes = Extract<(typeof WEBHOOK_ANSWERS)[AnswerName]['body'], { error: string }>['error'];
true satisfies [TableCodes] extends [ReceiverErrorCode]
  ? [ReceiverErrorCode] extends [TableCodes]
    ? true
    : false
  : false;

// The headers of every answer: JSON, never cached (a webhook's answer is about one request).
const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
};

/** What happened to a request, with what its answer carries. */
export interface Happened {
  outcome: Outcome;
  /** Fills `{detail}` in the row's message (a limit, a reason, the adapter's fix). */
  detail?: string;
  /** The event delivered (or still being delivered) while handling the request. */
  event?: VerificationCompletedEvent | undefined;
  /** What the log line of the row adds: what only this request knows, never its data. */
  logFields?: Record<string, unknown>;
  /**
   * The account the request was decided in, on a Receiver of several accounts: one it has
   * (resolved), never an id a request made up. Counted toward its health, and by telemetry.
   */
  account?: string;
}

/** What the decision came to: what happened, and the row it is answered with. */
export interface Decided extends Happened {
  name: AnswerName;
}

/** The answer to what happened: its row, by {@link OUTCOME_ROWS}. */
export function decided(happened: Happened): Decided {
  return { name: OUTCOME_ROWS[happened.outcome], ...happened };
}

// A row without `{detail}` is serialized once: floods of unsigned or wrongly signed
// requests are answered without building the same JSON again for each.
const FIXED_BODIES = new Map<AnswerName, string>();
for (const [name, row] of Object.entries(WEBHOOK_ANSWERS) as [AnswerName, AnswerRow][]) {
  const body = JSON.stringify(row.body);
  if (!body.includes('{detail}')) FIXED_BODIES.set(name, body);
}

/** The HTTP answer of a decision (the row, filled in), carrying its event, if any. */
export function responseOf({ name, detail, event }: Decided): ReceiverResponse {
  const row: AnswerRow = WEBHOOK_ANSWERS[name];
  // A fresh object each time: adapters and frameworks may add to it.
  const headers = Object.assign({}, JSON_HEADERS, row.headers);
  const body =
    FIXED_BODIES.get(name) ??
    JSON.stringify(
      Object.assign({}, row.body, {
        message: String(row.body.message).replace('{detail}', () => detail ?? ''),
      }),
    );
  const answer: ReceiverResponse = { status: row.status, headers, body };
  if (event) answer.event = event;
  return answer;
}
