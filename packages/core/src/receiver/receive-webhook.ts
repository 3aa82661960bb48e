import { sleepOn } from '../clock/clock.js';
import { FaceverifyError } from '../errors.js';
import { rejectionLog } from '../logging/rejection-log-limiter.js';
import { decodeJson } from '../payload/decode-json.js';
import { COMPLETED_EVENT, validateVerificationPayload } from '../payload/parse.js';
import type { VerificationPayload } from '../payload/types.js';
import { matchSignature } from '../signature/verify.js';
import { isOpen, type StoredResult, type TrackedSession } from '../store/store.js';
import { pollLeased } from '../tracker/poll-session.js';
import { announceDisplaced } from './announce-displaced.js';
import { bodyDigest } from './body-digest.js';
import type { ReceiverContext } from './context.js';
import { correlate } from './correlate.js';
import { completedEvent, type Delivery, deliverLeased, UNMATCHED_PREFIX } from './deliver.js';
import type { VerificationCompletedEvent } from './events.js';
import { type HeadersLike, readHeader } from './headers.js';
import {
  errorResponse,
  jsonHeaders,
  jsonResponse,
  type ReceiverResponse,
} from './http-response.js';

export const SIGNATURE_HEADER = 'x-webhook-signature';

/** A webhook request as adapters hand it over: the exact bytes, before any parsing. */
export interface WebhookRequest {
  method: string;
  headers: HeadersLike;
  body: Uint8Array;
  /**
   * Keeps background work alive after the response on platforms that end a request's
   * work with its response (Cloudflare Workers' `ctx.waitUntil`).
   */
  waitUntil?: (promise: Promise<unknown>) => void;
}

// Closed records of a user looked at to recognise a late duplicate: the most recent ones.
const RECENT_CLOSED_CONSIDERED = 20;

const ACCEPTED_BODY = JSON.stringify({ received: true });

/** `200 {"received":true}`, and any `extra` fields; the common answer's body is built once. */
const accepted = (extra?: Record<string, unknown>): ReceiverResponse =>
  extra === undefined
    ? { status: 200, headers: jsonHeaders(), body: ACCEPTED_BODY }
    : jsonResponse(200, { received: true, ...extra });

/**
 * Waits briefly for a lease another worker holds, such as a poll already in flight.
 * Resolves `'closed'` as soon as that worker has completed the session.
 */
async function leaseWithPatience(context: ReceiverContext, key: string, owner: string) {
  const { store, leaseMs, clock } = context;
  const deadline = clock.now() + Math.min(context.ackAfterMs / 2, 2000);
  for (let wait = 25; ; wait = Math.min(wait * 2, 400)) {
    const session = await store.lease({ key, owner, now: clock.now(), leaseMs });
    if (session) return session;
    const current = await store.get({ key, now: clock.now() });
    if (!current || !isOpen(current.state)) return 'closed';
    if (clock.now() + wait > deadline) return undefined;
    await sleepOn(clock, wait);
  }
}

/** `work`'s outcome, or `'deadline'` once `ackAfterMs` has passed without one. */
function raceAckDeadline<T>(context: ReceiverContext, work: Promise<T>): Promise<T | 'deadline'> {
  return new Promise<T | 'deadline'>((resolve, reject) => {
    const timer = context.ackTimers.start(() => resolve('deadline'));
    work.then(
      (value) => {
        context.ackTimers.cancel(timer);
        resolve(value);
      },
      (error: unknown) => {
        context.ackTimers.cancel(timer);
        reject(error);
      },
    );
  });
}

async function deliverWithDeadline(
  context: ReceiverContext,
  delivery: Promise<Delivery>,
  event: VerificationCompletedEvent,
  request: WebhookRequest,
): Promise<ReceiverResponse> {
  const outcome = await raceAckDeadline(context, delivery);
  if (outcome === 'deadline') {
    // Only work that outlives the response needs the platform to keep it alive.
    request.waitUntil?.(delivery);
    context.log.warn('Handlers are still running; acknowledged with 202 to keep the sender.', {
      ackAfterMs: context.ackAfterMs,
    });
    return { ...jsonResponse(202, { received: true, processing: true }), event };
  }
  if (outcome.outcome === 'failed') {
    return errorResponse(
      500,
      'handler_failed',
      'A verification.completed handler failed. The verified result is stored and will be delivered again.',
    );
  }
  const answer = accepted();
  answer.event = outcome.event;
  return answer;
}

async function storeAndDeliver(
  context: ReceiverContext,
  request: WebhookRequest,
  payload: VerificationPayload,
  result: StoredResult,
  digest: string,
): Promise<ReceiverResponse> {
  const { store } = context;
  const sessions = await store.findByUser({
    externalUserId: payload.external_user_id,
    now: context.now(),
    limit: context.maxOpenPerUser + RECENT_CLOSED_CONSIDERED,
  });
  const correlation = correlate(payload, sessions);
  if (correlation.kind === 'duplicate') return accepted({ duplicate: true });
  if (correlation.kind === 'ambiguous' && context.client) {
    // The service is the source of truth: polling each open session delivers each result.
    const settling = Promise.all(
      correlation.keys.map(async (key) => {
        const owner = context.newOwner();
        const session = await store.lease({
          key,
          owner,
          now: context.now(),
          leaseMs: context.leaseMs,
        });
        if (session) await pollLeased(context, session, owner);
      }),
    ).catch((error: unknown) => context.handlers.reportError(error, { stage: 'poll' }));
    request.waitUntil?.(settling);
    return jsonResponse(202, { received: true, settling: correlation.keys.length });
  }
  const owner = context.newOwner();
  if (correlation.kind === 'session' && correlation.by === 'user' && context.confirmWebhooks) {
    return confirmAndDeliver(context, request, correlation.key, owner, result);
  }
  let session: TrackedSession | 'closed' | undefined;
  if (correlation.kind === 'session') {
    const attached = await store.attachResult({
      key: correlation.key,
      result,
      now: context.now(),
    });
    if (attached === 'closed' || attached === 'already-attached') {
      return accepted({ duplicate: true });
    }
    session =
      attached === 'missing'
        ? await insertLeased(context, payload, result, digest, owner)
        : await leaseWithPatience(context, correlation.key, owner);
  } else {
    session = await insertLeased(context, payload, result, digest, owner);
  }
  // Another worker delivered it meanwhile (a poll, or confirm() on the redirect).
  if (session === 'closed') return accepted({ duplicate: true });
  if (!session) return jsonResponse(202, { received: true, queued: true });
  const stored = session.result ?? result;
  const event = await completedEvent(session, stored);
  return deliverWithDeadline(
    context,
    deliverLeased(context, session, owner, stored, event),
    event,
    request,
  );
}

/**
 * Stores a delivery matched to no session, already leased to `owner`: one store call
 * instead of two on the common path, and no window in which another worker could take it.
 */
async function insertLeased(
  context: ReceiverContext,
  payload: VerificationPayload,
  result: StoredResult,
  digest: string,
  owner: string,
): Promise<TrackedSession | 'closed' | undefined> {
  const now = context.now();
  const record: TrackedSession = {
    key: `${UNMATCHED_PREFIX}${digest}`,
    externalUserId: payload.external_user_id,
    createdAt: now,
    expiresAt: now + context.replayWindowMs,
    state: 'delivering',
    dueAt: now,
    attempts: 0,
    result,
    lease: { owner, until: now + context.leaseMs },
  };
  const { inserted, displaced } = await context.store.insert({
    record,
    now,
    maxOpenPerUser: context.maxOpenPerUser,
    displacedRetainMs: context.replayWindowMs,
  });
  if (displaced.length > 0) await announceDisplaced(context, displaced);
  if (inserted) return record;
  return leaseWithPatience(context, record.key, owner);
}

/**
 * A webhook matched to a session only by `external_user_id` is a nudge: the session is
 * leased and the service asked (`GET /v1/sessions/:token`), and what the service says is
 * delivered. A signed body is valid forever, so an old webhook replayed after its replay
 * window would otherwise become a later session's result.
 */
async function confirmAndDeliver(
  context: ReceiverContext,
  request: WebhookRequest,
  key: string,
  owner: string,
  result: StoredResult,
): Promise<ReceiverResponse> {
  const session = await leaseWithPatience(context, key, owner);
  if (session === 'closed') return accepted({ duplicate: true });
  // Another worker holds the session (a poll in flight): it asks the service itself.
  if (!session) return jsonResponse(202, { received: true, queued: true });
  const confirming = pollLeased(context, session, owner, { webhook: result });
  const outcome = await raceAckDeadline(context, confirming);
  if (outcome === 'deadline') {
    request.waitUntil?.(confirming);
    return jsonResponse(202, { received: true, processing: true });
  }
  if (outcome.outcome === 'failed') {
    return errorResponse(
      500,
      'handler_failed',
      'A verification.completed handler failed. The verified result is stored and will be delivered again.',
    );
  }
  if (outcome.contradicted) return accepted({ contradicted: true });
  if (outcome.outcome === 'delivered' && outcome.event) {
    return { ...accepted(), event: outcome.event };
  }
  return accepted({ queued: outcome.outcome !== 'delivered' });
}

/**
 * The webhook pipeline: method, size, signature over the exact bytes (every configured
 * secret, constant time), payload validation, replay window, correlation, an atomic claim
 * in the Store, handlers, and the answer. See docs/troubleshooting.md for every status.
 */
export async function receiveWebhook(
  context: ReceiverContext,
  request: WebhookRequest,
): Promise<ReceiverResponse> {
  const { log } = context;
  if (request.method.toUpperCase() !== 'POST') {
    return errorResponse(405, 'method_not_allowed', 'Webhooks are delivered with POST.', {
      allow: 'POST',
    });
  }
  if (request.body.byteLength > context.maxBodyBytes) {
    return payloadTooLarge(context.maxBodyBytes);
  }
  const signature = readHeader(request.headers, SIGNATURE_HEADER);
  if (signature === undefined || signature.trim() === '') {
    rejectionLog(log, context.now).warn('Webhook rejected: no X-Webhook-Signature header.');
    return errorResponse(
      401,
      'signature_missing',
      'The X-Webhook-Signature header is missing. Webhooks from the service always carry it.',
    );
  }
  const match = await matchSignature(request.body, signature, context.secrets);
  if (!match) {
    rejectionLog(log, context.now).warn(
      'Webhook rejected: signature does not match the raw body.',
      {
        candidates: context.secrets.length,
      },
    );
    return errorResponse(
      401,
      'signature_invalid',
      'The X-Webhook-Signature header does not match the body for any configured secret. Check FACEVERIFY_WEBHOOK_SECRET against the service Settings, and that nothing altered the body before verification.',
    );
  }
  let payload: VerificationPayload;
  try {
    const json = decodeJson(request.body);
    const event = (json as { event?: unknown } | null)?.event;
    if (typeof event === 'string' && event !== COMPLETED_EVENT) {
      log.info('Webhook with an unknown event acknowledged and ignored.', { event });
      return accepted({ ignored: true });
    }
    payload = validateVerificationPayload(json);
  } catch (error) {
    const message = error instanceof FaceverifyError ? error.message : 'The payload is invalid.';
    log.warn('Webhook rejected: correctly signed but invalid payload.', { reason: message });
    return errorResponse(400, 'payload_invalid', message);
  }
  const hashing = bodyDigest(request.body);
  const digest = typeof hashing === 'string' ? hashing : await hashing;
  const now = context.now();
  try {
    // Kept as long as any session this delivery could match is open or retained.
    const ttlMs = context.replayWindowMs + context.sessionLifetimeMs;
    if (!(await context.store.remember({ digest, ttlMs, now }))) {
      log.info('Replayed webhook acknowledged and not handled again.');
      return accepted({ duplicate: true });
    }
  } catch (error) {
    return storeUnavailable(context, error);
  }
  const result: StoredResult = {
    payload,
    source: 'webhook',
    receivedAt: now,
    secretLabel: match.label,
  };
  if (match.index > 0) {
    log.info('Webhook verified with an older secret; the rotation is not finished.', {
      matchedLabel: match.label,
    });
  }
  try {
    return await storeAndDeliver(context, request, payload, result, digest);
  } catch (error) {
    await context.store.forget({ digest }).catch(() => undefined);
    return storeUnavailable(context, error);
  }
}

function storeUnavailable(context: ReceiverContext, error: unknown): ReceiverResponse {
  context.handlers.reportError(error, { stage: 'store' });
  context.log.error('The store failed while accepting a webhook.', {
    error: error instanceof Error ? error.message : String(error),
  });
  return errorResponse(
    503,
    'store_unavailable',
    'The webhook could not be stored; it was not handled. Check the store (e.g. Redis) connection.',
  );
}

export function payloadTooLarge(maxBodyBytes: number): ReceiverResponse {
  return errorResponse(
    413,
    'payload_too_large',
    `The body is larger than ${maxBodyBytes} bytes. Raise maxBodyBytes if the service sends larger webhooks.`,
  );
}
