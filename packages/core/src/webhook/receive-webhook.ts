import { hasLoneSurrogate } from '../client/external-user-id.js';
import { sleepOn } from '../clock/clock.js';
import { announceDisplaced } from '../delivery/announce-displaced.js';
import { correlate } from '../delivery/correlate.js';
import { completedEvent, type DeliveryOutcome, deliverLeased } from '../delivery/deliver.js';
import type { VerificationCompletedEvent } from '../delivery/events.js';
import { type PollOutcome, pollLeased } from '../delivery/poll-session.js';
import { FaceverifyError } from '../errors.js';
import { decodeJson } from '../payload/decode-json.js';
import { COMPLETED_EVENT, validateVerificationPayload } from '../payload/parse.js';
import type { VerificationPayload } from '../payload/types.js';
import { findSecret } from '../signature/verify.js';
import { UNMATCHED_PREFIX } from '../store/record-keys.js';
import {
  type AttachAndLeaseOutcome,
  isOpen,
  type StoredResult,
  type TrackedSession,
} from '../store/store.js';
import { accountContext } from './account-context.js';
import { type AnswerName, type Decided, WEBHOOK_ANSWERS } from './answers.js';
import { bodyDigest } from './body-digest.js';
import { type HeadersLike, readHeader, SIGNATURE_HEADER } from './headers.js';
import { recordRawBodyRefused } from './raw-body-refused.js';
import type { UnreadBody } from './unread-body.js';
import type { WebhookContext } from './webhook-context.js';

/** A webhook request as adapters hand it over: the exact bytes, before any parsing. */
export interface WebhookRequest {
  method: string;
  headers: HeadersLike;
  /** The exact bytes sent, or why the adapter could not read them (answered as such). */
  body: Uint8Array | UnreadBody;
  /**
   * The account the request is for, on a Receiver of several accounts (`accounts`): from
   * the webhook's path (`/webhooks/verification/:account`), as the adapters read it. Ignored
   * by a Receiver of one account.
   */
  account?: string | undefined;
  /**
   * Keeps background work alive after the response on platforms that end a request's
   * work with its response (Cloudflare Workers' `ctx.waitUntil`).
   */
  waitUntil?: (promise: Promise<unknown>) => void;
}

// Closed records of a user looked at to recognise a late duplicate: the most recent ones.
const RECENT_CLOSED_CONSIDERED = 20;

/**
 * Waits briefly for a lease another worker holds, such as a poll already in flight.
 * Resolves `'closed'` as soon as that worker has completed the session.
 */
async function leaseWithPatience(context: WebhookContext, key: string, owner: string) {
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
  context: WebhookContext,
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
      const logFields = { ackAfterMs: context.ackAfterMs };
      resolve(event ? { name: 'processing', event, logFields } : { name: 'processing', logFields });
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
function deliveryOutcome(outcome: DeliveryOutcome | PollOutcome['outcome']): AnswerName {
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
 * Each branch ends in one row of the answer table (answers.ts).
 */
async function decide(
  context: WebhookContext,
  request: WebhookRequest,
  payload: VerificationPayload,
  result: StoredResult,
  digest: string,
  finding: Promise<TrackedSession[]>,
): Promise<Decided> {
  const correlation = correlate(payload, await finding);
  switch (correlation.kind) {
    case 'duplicate':
      return { name: 'duplicate' };
    case 'ambiguous':
      if (context.client) {
        settleByPolling(context, request, correlation.keys);
        return { name: 'settling' };
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
  context: WebhookContext,
  payload: VerificationPayload,
  now: number,
): Promise<TrackedSession[]> {
  // No store holds an id with a lone surrogate (each refuses one): no session is this user's.
  if (hasLoneSurrogate(payload.external_user_id)) return Promise.resolve([]);
  try {
    return context.store.findByUser({
      externalUserId: payload.external_user_id,
      account: context.account,
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
  context: WebhookContext,
  request: WebhookRequest,
  result: StoredResult,
  digest: string,
): Promise<Decided> {
  if (context.untrackedWebhooks === 'ignore') {
    reportUntracked(context);
    return { name: 'untracked' };
  }
  const owner = context.newOwner();
  const session = await insertLeased(context, result, digest, owner);
  return deliverStored(context, request, session, owner, result);
}

/** Tells the `error` handlers that an untracked webhook was not delivered (its row logs it). */
function reportUntracked(context: WebhookContext): void {
  const { message } = WEBHOOK_ANSWERS.untracked.log;
  const error = Object.assign(new Error(message), { code: 'webhook_untracked' });
  context.handlers.reportError(error, { stage: 'confirm', code: 'webhook_untracked' });
}

/** Several open sessions of one user: the service's answer for each is what is delivered. */
function settleByPolling(context: WebhookContext, request: WebhookRequest, keys: string[]): void {
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
  context: WebhookContext,
  request: WebhookRequest,
  key: string,
  result: StoredResult,
  digest: string,
): Promise<Decided> {
  const owner = context.newOwner();
  const { attached, leased } = await attachLeased(context, key, result, owner);
  if (attached === 'closed' || attached === 'already-attached') return { name: 'duplicate' };
  // The session went after it was found (erased by forgetUser, or its retention ended): the
  // webhook now matches no tracked session, and is handled as one, never stored in its place
  // where untracked webhooks are not delivered.
  if (attached === 'missing') return deliverUntracked(context, request, result, digest);
  const session = leased ?? (await leaseWithPatience(context, key, owner));
  return deliverStored(context, request, session, owner, result);
}

/**
 * Attaches the result and leases the session to `owner` in one store call, where the store
 * has `attachAndLease`; on a store without it, only attaches (the caller leases). Either way
 * a lease another worker holds (a poll in flight) is left to the caller to wait for.
 */
async function attachLeased(
  context: WebhookContext,
  key: string,
  result: StoredResult,
  owner: string,
): Promise<AttachAndLeaseOutcome> {
  const { store, leaseMs } = context;
  if (store.attachAndLease) {
    return store.attachAndLease({ key, result, owner, leaseMs, now: context.now() });
  }
  const attached = await store.attachResult({ key, result, now: context.now() });
  return { attached };
}

/** Delivers the result of a session this worker leased (or says who else has it). */
async function deliverStored(
  context: WebhookContext,
  request: WebhookRequest,
  session: TrackedSession | 'closed' | undefined,
  owner: string,
  result: StoredResult,
): Promise<Decided> {
  // Another worker delivered it meanwhile (a poll, or confirm() on the redirect).
  if (session === 'closed') return { name: 'duplicate' };
  if (!session) return { name: 'queued' };
  const stored = session.result ?? result;
  const built = completedEvent(session, stored, context.now());
  const event = built instanceof Promise ? await built : built;
  const delivery = deliverLeased(context, session, owner, stored, event).then(
    ({ outcome }): Decided => ({ name: deliveryOutcome(outcome), event }),
  );
  return withAckDeadline(context, request, delivery, event);
}
/**
 * Stores a delivery matched to no session, already leased to `owner`: one store call
 * instead of two on the common path, and no window in which another worker could take it.
 */
async function insertLeased(
  context: WebhookContext,
  result: StoredResult,
  digest: string,
  owner: string,
): Promise<TrackedSession | 'closed' | undefined> {
  const now = context.now();
  const record: TrackedSession = {
    key: `${UNMATCHED_PREFIX}${digest}`,
    externalUserId: result.payload.external_user_id,
    ...(context.account === undefined ? {} : { account: context.account }),
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
  context: WebhookContext,
  request: WebhookRequest,
  key: string,
  result: StoredResult,
): Promise<Decided> {
  const owner = context.newOwner();
  const session = await leaseWithPatience(context, key, owner);
  if (session === 'closed') return { name: 'duplicate' };
  // Another worker holds the session (a poll in flight): it asks the service itself.
  if (!session) return { name: 'queued' };
  const confirming = pollLeased(context, session, owner, { webhook: result }).then(
    (polled): Decided => {
      if (polled.contradicted) return { name: 'contradicted' };
      const name = deliveryOutcome(polled.outcome);
      return polled.event ? { name, event: polled.event } : { name };
    },
  );
  return withAckDeadline(context, request, confirming);
}

/**
 * What a request on the webhook path is answered: one row of the answer table (answers.ts),
 * decided top to bottom. Method, size, the signature over the exact bytes (every configured
 * secret, constant time), the payload, the replay window, correlation with the sessions
 * tracked, an atomic claim in the store, the handlers. The Receiver writes the row; see
 * docs/troubleshooting.md for each.
 */
export async function decideAnswer(
  receiverContext: WebhookContext,
  request: WebhookRequest,
): Promise<Decided> {
  if (request.method.toUpperCase() !== 'POST') return { name: 'method_not_allowed' };
  // On a Receiver of several accounts, the request is the account's its path names.
  const choosing = receiverContext.accounts
    ? accountContext(receiverContext, request.account)
    : receiverContext;
  const chosen = choosing instanceof Promise ? await choosing : choosing;
  if ('name' in chosen) return chosen;
  if (chosen.account === undefined) return decideFor(chosen, request);
  const decided = await decideFor(chosen, request);
  decided.account = chosen.account;
  return decided;
}

/** The answer of a request decided in `context`: the Receiver's, or its account's. */
async function decideFor(context: WebhookContext, request: WebhookRequest): Promise<Decided> {
  const { body } = request;
  if (!(body instanceof Uint8Array)) return unreadBody(context, request.headers, body);
  if (body.byteLength > context.maxBodyBytes) {
    return { name: 'payload_too_large', detail: String(context.maxBodyBytes) };
  }
  const signature = readHeader(request.headers, SIGNATURE_HEADER);
  if (signature === undefined || signature.trim() === '') return { name: 'signature_missing' };
  const matching = findSecret(body, signature, context.secrets);
  const match = matching instanceof Promise ? await matching : matching;
  if (!match) {
    context.refusedBodies.note(body, 'signature_invalid', context.account);
    return { name: 'signature_invalid', logFields: { candidates: context.secrets.length } };
  }
  // From here on the body is the service's.
  let payload: VerificationPayload;
  try {
    const json = decodeJson(body);
    const event = (json as { event?: unknown } | null)?.event;
    if (typeof event === 'string' && event !== COMPLETED_EVENT) {
      return { name: 'ignored', logFields: { event } };
    }
    payload = validateVerificationPayload(json);
  } catch (error) {
    const reason = error instanceof FaceverifyError ? error.message : 'The payload is invalid.';
    return { name: 'payload_invalid', detail: reason, logFields: { reason } };
  }
  context.activity.record('webhook_accepted', undefined, context.account);
  // The first webhook of a process reads the store's clock first (`storeClock`).
  const clockReading = context.clockReady();
  if (clockReading) await clockReading;
  const hashing = bodyDigest(body);
  const bodyHash = typeof hashing === 'string' ? hashing : await hashing;
  // Replays are recognised per account: an account's body never stands for another's.
  const digest = context.account === undefined ? bodyHash : `${context.account}.${bodyHash}`;
  const now = context.now();
  const finding = findSessions(context, payload, now);
  finding.catch(ignoreUnread);
  try {
    // Kept as long as any session this delivery could match is open or retained.
    const ttlMs = context.replayWindowMs + context.sessionLifetimeMs;
    if (!(await context.store.remember({ digest, ttlMs, now }))) {
      context.log.info('Replayed webhook acknowledged and not handled again.');
      return { name: 'duplicate' };
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
    context.log.info('Webhook verified with an older secret; the rotation is not finished.', {
      matchedLabel: match.label,
    });
  }
  try {
    return await decide(context, request, payload, result, digest, finding);
  } catch (error) {
    await context.store.forget({ digest }).catch(() => undefined);
    return storeUnavailable(context, error);
  }
}

/** A body the adapter could not read: its row, once the evidence of a parser is counted. */
async function unreadBody(
  context: WebhookContext,
  headers: HeadersLike,
  body: UnreadBody,
): Promise<Decided> {
  switch (body.kind) {
    case 'too-large':
      return { name: 'payload_too_large', detail: String(context.maxBodyBytes) };
    case 'unavailable':
      // A setup mistake, not a per-request event, but only when the service sent the
      // request: its signature, and what polling recovers, decide whether the alarm counts it.
      await recordRawBodyRefused(context, headers, body);
      return { name: 'raw_body_unavailable', detail: body.hint };
    case 'unreadable':
      return { name: 'body_unreadable', detail: body.reason };
    case 'timeout':
      return { name: 'body_timeout', detail: String(body.afterMs) };
  }
}

/** A lookup whose answer is not needed (a replay, or a failed remember) fails unseen. */
function ignoreUnread(): void {}

function storeUnavailable(context: WebhookContext, error: unknown): Decided {
  context.handlers.reportError(error, { stage: 'store' });
  const message = error instanceof Error ? error.message : String(error);
  return { name: 'store_unavailable', logFields: { error: message } };
}
