import { hasLoneSurrogate } from '../client/external-user-id.js';
import { sleepOn } from '../clock/clock.js';
import { FaceverifyError } from '../errors.js';
import { rejectionLog } from '../logging/rejection-log-limiter.js';
import { decodeJson } from '../payload/decode-json.js';
import { COMPLETED_EVENT, validateVerificationPayload } from '../payload/parse.js';
import type { VerificationPayload } from '../payload/types.js';
import { findSecret } from '../signature/verify.js';
import { isOpen, type StoredResult, type TrackedSession } from '../store/store.js';
import { type PollOutcome, pollLeased } from '../tracker/poll-session.js';
import { announceDisplaced } from './announce-displaced.js';
import { bodyDigest } from './body-digest.js';
import type { ReceiverContext } from './context.js';
import { correlate } from './correlate.js';
import {
  completedEvent,
  type DeliveryOutcome,
  deliverLeased,
  UNMATCHED_PREFIX,
} from './deliver.js';
import type { VerificationCompletedEvent } from './events.js';
import { type HeadersLike, readHeader } from './headers.js';
import { errorResponse, fixedErrorResponse, type ReceiverResponse } from './http-response.js';
import { answerOutcome, type WebhookOutcome } from './webhook-outcomes.js';

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

const methodNotAllowed = fixedErrorResponse(
  405,
  'method_not_allowed',
  'Webhooks are delivered with POST.',
  { allow: 'POST' },
);
const signatureMissing = fixedErrorResponse(
  401,
  'signature_missing',
  'The X-Webhook-Signature header is missing. Webhooks from the service always carry it.',
);
const signatureInvalid = fixedErrorResponse(
  401,
  'signature_invalid',
  'The X-Webhook-Signature header does not match the body for any configured secret. Check FACEVERIFY_WEBHOOK_SECRET against the service Settings, and that nothing altered the body before verification.',
);

/** An outcome of the decision, with the event delivered (or still being delivered), if any. */
interface Decided {
  outcome: WebhookOutcome;
  event?: VerificationCompletedEvent;
}

/**
 * Waits briefly for a lease another worker holds, such as a poll already in flight.
 * Resolves `'closed'` as soon as that worker has completed the session.
 */
async function leaseWithPatience(context: ReceiverContext, key: string, owner: string) {
  const { store, leaseMs, clock } = context;
  const deadline = clock.now() + Math.min(context.ackAfterMs / 2, 2000);
  for (let wait = 25; ; wait = Math.min(wait * 2, 400)) {
    const session = await store.lease({ key, owner, now: context.now(), leaseMs });
    if (session) return session;
    const current = await store.get({ key, now: context.now() });
    if (!current || !isOpen(current.state)) return 'closed';
    if (clock.now() + wait > deadline) return undefined;
    await sleepOn(clock, wait);
  }
}

/**
 * `work`'s outcome, or `processing` once `ackAfterMs` has passed without one: the work goes
 * on in the background, kept alive by the platform's `waitUntil` where there is one.
 */
function withAckDeadline(
  context: ReceiverContext,
  request: WebhookRequest,
  work: Promise<Decided>,
  event?: VerificationCompletedEvent,
): Promise<Decided> {
  return new Promise<Decided>((resolve, reject) => {
    let answered = false;
    const timer = context.ackTimers.start(() => {
      answered = true;
      // Only work that outlives the response needs the platform to keep it alive.
      request.waitUntil?.(work);
      context.log.warn('Handlers are still running; acknowledged with 202 to keep the sender.', {
        ackAfterMs: context.ackAfterMs,
      });
      resolve(event ? { outcome: 'processing', event } : { outcome: 'processing' });
    });
    work.then(
      (value) => {
        context.ackTimers.cancel(timer);
        resolve(value);
      },
      (error: unknown) => {
        context.ackTimers.cancel(timer);
        // After the 202 nobody awaits the answer: the failure still reaches `error` handlers.
        if (answered) context.handlers.reportError(error, { stage: 'internal' });
        else reject(error);
      },
    );
  });
}

/** The outcome of delivering to handlers, or of confirming with the service and delivering. */
function deliveryOutcome(outcome: DeliveryOutcome | PollOutcome['outcome']): WebhookOutcome {
  switch (outcome) {
    case 'delivered':
      return 'delivered';
    case 'failed':
      return 'handler_failed';
    // Another worker took the session over, or the service could not be asked now: the
    // result is stored and the next holder delivers it.
    case 'lease-lost':
    case 'retry-later':
    case 'pending':
    case 'left':
      return 'queued';
    case 'expired':
      return 'contradicted';
  }
}

/**
 * The decision for a verified, new webhook: correlation with the sessions tracked for its
 * user × what the store holds × the service's confirmation × the acknowledgement deadline.
 * Each branch ends in one row of {@link WEBHOOK_OUTCOMES}.
 */
async function decide(
  context: ReceiverContext,
  request: WebhookRequest,
  payload: VerificationPayload,
  result: StoredResult,
  digest: string,
  finding: Promise<TrackedSession[]>,
): Promise<Decided> {
  const correlation = correlate(payload, await finding);
  switch (correlation.kind) {
    case 'duplicate':
      return { outcome: 'duplicate' };
    case 'ambiguous':
      if (context.client) {
        settleByPolling(context, request, correlation.keys);
        return { outcome: 'settling' };
      }
      return deliverUntracked(context, request, result, digest);
    case 'none':
      return deliverUntracked(context, request, result, digest);
    case 'session': {
      const { key, by } = correlation;
      // A token names the session; a user alone only suggests it, so the service confirms.
      if (by === 'token') {
        return attachAndDeliver(context, request, key, { ...result, confirmed: true }, digest);
      }
      return context.confirmWebhooks
        ? confirmAndDeliver(context, request, key, result)
        : attachAndDeliver(context, request, key, result, digest);
    }
  }
}

/**
 * The sessions tracked for the webhook's user, looked up while its digest is remembered: the
 * two calls are independent, so a store across a network answers both in one round trip's
 * time. A replay never reads the answer; a rejection here is only seen if it is read.
 */
function findSessions(
  context: ReceiverContext,
  payload: VerificationPayload,
  now: number,
): Promise<TrackedSession[]> {
  // No store holds an id with a lone surrogate (each refuses one): no session is this user's.
  if (hasLoneSurrogate(payload.external_user_id)) return Promise.resolve([]);
  try {
    return context.store.findByUser({
      externalUserId: payload.external_user_id,
      now,
      limit: context.maxOpenPerUser + RECENT_CLOSED_CONSIDERED,
    });
  } catch (error) {
    // A store that throws instead of rejecting fails the webhook as a rejection would.
    return Promise.reject(error);
  }
}

/**
 * A result no tracked session vouches for: with an API client it is not delivered
 * (`untrackedWebhooks: 'ignore'`), since it may be an old one sent again; otherwise it is
 * delivered once, marked `confirmed: false`.
 */
async function deliverUntracked(
  context: ReceiverContext,
  request: WebhookRequest,
  result: StoredResult,
  digest: string,
): Promise<Decided> {
  if (context.untrackedWebhooks === 'ignore') {
    reportUntracked(context);
    return { outcome: 'untracked' };
  }
  const owner = context.newOwner();
  const session = await insertLeased(context, result, digest, owner);
  return deliverStored(context, request, session, owner, result);
}

/** Says, at most once a minute with a count, that untracked webhooks were not delivered. */
function reportUntracked(context: ReceiverContext): void {
  const message =
    "A signed webhook matched no open session this Receiver tracks, so it was acknowledged and not delivered: it may be an old result sent again. If your sessions are started outside this Receiver, set untrackedWebhooks: 'deliver'.";
  rejectionLog(context.log, context.now).warn(message);
  const error = Object.assign(new Error(message), { code: 'webhook_untracked' });
  context.handlers.reportError(error, { stage: 'confirm', code: 'webhook_untracked' });
}

/** Several open sessions of one user: the service's answer for each is what is delivered. */
function settleByPolling(context: ReceiverContext, request: WebhookRequest, keys: string[]): void {
  const { store } = context;
  const settling = Promise.all(
    keys.map(async (key) => {
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
}

/** Attaches the result to a tracked session and delivers it, unless it is already settled. */
async function attachAndDeliver(
  context: ReceiverContext,
  request: WebhookRequest,
  key: string,
  result: StoredResult,
  digest: string,
): Promise<Decided> {
  const attached = await context.store.attachResult({ key, result, now: context.now() });
  if (attached === 'closed' || attached === 'already-attached') return { outcome: 'duplicate' };
  const owner = context.newOwner();
  const session =
    attached === 'missing'
      ? await insertLeased(context, result, digest, owner)
      : await leaseWithPatience(context, key, owner);
  return deliverStored(context, request, session, owner, result);
}

/** Delivers the result of a session this worker leased (or says who else has it). */
async function deliverStored(
  context: ReceiverContext,
  request: WebhookRequest,
  session: TrackedSession | 'closed' | undefined,
  owner: string,
  result: StoredResult,
): Promise<Decided> {
  // Another worker delivered it meanwhile (a poll, or confirm() on the redirect).
  if (session === 'closed') return { outcome: 'duplicate' };
  if (!session) return { outcome: 'queued' };
  const stored = session.result ?? result;
  const built = completedEvent(session, stored);
  const event = built instanceof Promise ? await built : built;
  const delivery = deliverLeased(context, session, owner, stored, event).then(
    ({ outcome }): Decided => ({ outcome: deliveryOutcome(outcome), event }),
  );
  return withAckDeadline(context, request, delivery, event);
}
/**
 * Stores a delivery matched to no session, already leased to `owner`: one store call
 * instead of two on the common path, and no window in which another worker could take it.
 */
async function insertLeased(
  context: ReceiverContext,
  result: StoredResult,
  digest: string,
  owner: string,
): Promise<TrackedSession | 'closed' | undefined> {
  const now = context.now();
  const record: TrackedSession = {
    key: `${UNMATCHED_PREFIX}${digest}`,
    externalUserId: result.payload.external_user_id,
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
  result: StoredResult,
): Promise<Decided> {
  const owner = context.newOwner();
  const session = await leaseWithPatience(context, key, owner);
  if (session === 'closed') return { outcome: 'duplicate' };
  // Another worker holds the session (a poll in flight): it asks the service itself.
  if (!session) return { outcome: 'queued' };
  const confirming = pollLeased(context, session, owner, { webhook: result }).then(
    (polled): Decided => {
      if (polled.contradicted) return { outcome: 'contradicted' };
      const outcome = deliveryOutcome(polled.outcome);
      return polled.event ? { outcome, event: polled.event } : { outcome };
    },
  );
  return withAckDeadline(context, request, confirming);
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
    return methodNotAllowed();
  }
  if (request.body.byteLength > context.maxBodyBytes) {
    return payloadTooLarge(context.maxBodyBytes);
  }
  const signature = readHeader(request.headers, SIGNATURE_HEADER);
  if (signature === undefined || signature.trim() === '') {
    context.activity.record('signature_missing');
    rejectionLog(log, context.now).warn('Webhook rejected: no X-Webhook-Signature header.');
    return signatureMissing();
  }
  const matching = findSecret(request.body, signature, context.secrets);
  const match = matching instanceof Promise ? await matching : matching;
  if (!match) {
    context.activity.record('signature_invalid');
    context.refusedBodies.note(request.body, 'signature_invalid');
    rejectionLog(log, context.now).warn(
      'Webhook rejected: signature does not match the raw body. Check FACEVERIFY_WEBHOOK_SECRET (or the secret option) against the signing secret in the service Settings, and that nothing rewrites the body before verification (a body parser mounted first).',
      {
        candidates: context.secrets.length,
      },
    );
    return signatureInvalid();
  }
  let payload: VerificationPayload;
  try {
    const json = decodeJson(request.body);
    const event = (json as { event?: unknown } | null)?.event;
    if (typeof event === 'string' && event !== COMPLETED_EVENT) {
      log.info('Webhook with an unknown event acknowledged and ignored.', { event });
      return answerOutcome('ignored');
    }
    payload = validateVerificationPayload(json);
  } catch (error) {
    const message = error instanceof FaceverifyError ? error.message : 'The payload is invalid.';
    context.activity.record('payload_invalid');
    log.warn('Webhook rejected: correctly signed but invalid payload.', { reason: message });
    return errorResponse(400, 'payload_invalid', message);
  }
  context.activity.record('webhook_accepted');
  // The first webhook of a process reads the store's clock first (`storeClock`).
  const clockReading = context.clockReady();
  if (clockReading) await clockReading;
  const hashing = bodyDigest(request.body);
  const digest = typeof hashing === 'string' ? hashing : await hashing;
  const now = context.now();
  const finding = findSessions(context, payload, now);
  finding.catch(ignoreUnread);
  try {
    // Kept as long as any session this delivery could match is open or retained.
    const ttlMs = context.replayWindowMs + context.sessionLifetimeMs;
    if (!(await context.store.remember({ digest, ttlMs, now }))) {
      log.info('Replayed webhook acknowledged and not handled again.');
      return answerOutcome('duplicate');
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
    const { outcome, event } = await decide(context, request, payload, result, digest, finding);
    return answerOutcome(outcome, event);
  } catch (error) {
    await context.store.forget({ digest }).catch(() => undefined);
    return storeUnavailable(context, error);
  }
}

/** A lookup whose answer is not needed (a replay, or a failed remember) fails unseen. */
function ignoreUnread(): void {}

function storeUnavailable(context: ReceiverContext, error: unknown): ReceiverResponse {
  context.activity.record('store_unavailable');
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
