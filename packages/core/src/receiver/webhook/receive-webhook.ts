import { sha256Hex128 } from '#hmac';
import { sleepOn } from '../../base/clock/clock.js';
import { FaceverifyError } from '../../base/errors.js';
import { hasLoneSurrogate } from '../../client/external-user-id.js';
import { announceDisplaced, type DisplacedContext } from '../../delivery/announce-displaced.js';
import { correlate } from '../../delivery/correlate.js';
import { completedEvent, deliverLeased } from '../../delivery/deliver.js';
import type { VerificationCompletedEvent } from '../../delivery/events.js';
import { type PollContext, type PollOutcome, pollLeased } from '../../delivery/poll-session.js';
import { hasNewerSession } from '../../delivery/superseded.js';
import { noteOlderSecret } from '../../operations/older-secret.js';
import { unmatchedKey } from '../../store/record-keys.js';
import {
  type AttachAndLeaseOutcome,
  isOpen,
  type StoredResult,
  type TrackedSession,
} from '../../store/store.js';
import {
  COMPLETED_EVENT,
  decodeJson,
  validateVerificationPayload,
} from '../../wire/payload/parse.js';
import type { VerificationPayload } from '../../wire/payload/types.js';
import { findSecret, type SecretMatch } from '../../wire/signature/verify.js';
import { accountContext } from './account-context.js';
import { type Decided, decided, type Happened, WEBHOOK_ANSWERS } from './answers.js';
import { type HeadersLike, readHeader, SIGNATURE_HEADER } from './headers.js';
import { type RawBodyContext, recordRawBodyRefused } from './raw-body-refused.js';
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
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

// Closed records of a user looked at to recognise a late duplicate: the most recent ones.
const RECENT_CLOSED_CONSIDERED = 20;

const TOO_LARGE: UnreadBody = { kind: 'too-large' };

/** What waiting for another worker's lease works with: the store on its clocks, the deadline. */
type PatienceContext = Pick<WebhookContext, 'store' | 'now' | 'clock' | 'leaseMs' | 'ackAfterMs'>;

/** What answering within `ackAfterMs` works with: its timers, and the handlers told of late failures. */
type AckContext = Pick<WebhookContext, 'ackTimers' | 'ackAfterMs' | 'handlers'>;

/**
 * What a request on the webhook path is answered: the row of the answer table (answers.ts)
 * for what happened to it, handed to `answer`, which the Receiver writes it with (see
 * docs/troubleshooting.md for each row). Never rejects of itself: what throws past the steps
 * below is a defect, answered `internal_error` (store failures are answered inside,
 * `store_unavailable`). Every refusal is decided here synchronously, with no promise, where the
 * runtime verifies synchronously (Node).
 */
export function decideAnswer<T>(
  context: WebhookContext,
  request: WebhookRequest,
  answer: (decided: Decided) => T,
): T | Promise<T> {
  let happening: Happened | Promise<Happened>;
  try {
    happening = receive(context, request);
  } catch (error) {
    return answer(defect(context, error));
  }
  // `answer` runs in the one reaction to what happened: no second promise to write it.
  return happening instanceof Promise
    ? happening.then(
        (happened) => answer(decided(happened)),
        (error: unknown) => answer(defect(context, error)),
      )
    : answer(decided(happening));
}

function defect(context: WebhookContext, error: unknown): Decided {
  context.handlers.reportError(error, { stage: 'internal' });
  return decided({ outcome: 'defect', logFields: { error: messageOf(error) } });
}

/**
 * What happened to a request, top to bottom: its method, its account, its body (the exact
 * bytes, within `maxBodyBytes`), the signature over them (every configured secret, constant
 * time), the payload; then, from the first store call on, `accept`. Each step says what
 * happened in its own words (an `Outcome`).
 */
function receive(
  receiverContext: WebhookContext,
  request: WebhookRequest,
): Happened | Promise<Happened> {
  if (request.method.toUpperCase() !== 'POST') return { outcome: 'not-post' };
  // On a Receiver of several accounts, the request is the account's its path names.
  const { accounts } = receiverContext;
  if (!accounts) return receiveIn(receiverContext, request);
  const choosing = accountContext(receiverContext, accounts, request.account, request);
  return choosing instanceof Promise
    ? choosing.then((chosen) => receiveInAccount(chosen, request))
    : receiveInAccount(choosing, request);
}

/** `receiveIn` the account chosen, or what happened instead (unknown, unavailable). */
function receiveInAccount(
  chosen: WebhookContext | Happened,
  request: WebhookRequest,
): Happened | Promise<Happened> {
  if ('outcome' in chosen) return chosen;
  const { account } = chosen;
  const happening = receiveIn(chosen, request);
  if (account === undefined) return happening;
  // The account it was decided in: one the Receiver has, never an id a request made up.
  const inAccount = (happened: Happened) => Object.assign(happened, { account });
  return happening instanceof Promise ? happening.then(inAccount) : inAccount(happening);
}

/** The rest of `receive`, in the context of the request's account (or the Receiver's). */
function receiveIn(context: WebhookContext, request: WebhookRequest): Happened | Promise<Happened> {
  const { body, headers } = request;
  if (!(body instanceof Uint8Array)) return refuseUnread(context, headers, body);
  if (body.byteLength > context.maxBodyBytes) return refuseUnread(context, headers, TOO_LARGE);
  const signature = readHeader(headers, SIGNATURE_HEADER);
  if (signature === undefined || signature.trim() === '') return { outcome: 'unsigned' };
  const matching = findSecret(body, signature, context.secrets);
  return matching instanceof Promise
    ? matching.then((match) => receiveSigned(context, request, body, match))
    : receiveSigned(context, request, body, matching);
}

/** A body whose signature was checked: refused, or from here on the service's. */
function receiveSigned(
  context: WebhookContext,
  request: WebhookRequest,
  body: Uint8Array,
  match: SecretMatch | null,
): Happened | Promise<Happened> {
  if (!match) {
    context.refusedBodies.note(body, 'signature_invalid', context.account);
    return { outcome: 'bad-signature', logFields: { candidates: context.secrets.length } };
  }
  const payload = payloadOf(body);
  if ('outcome' in payload) return payload;
  context.activity.record('webhook_accepted', undefined, context.account);
  // The replay key: 128 bits of the SHA-256 of the exact body, not the signature (a body signed
  // again under a rotated secret is the same delivery). A value, no promise, on Node.
  return accept(context, request, payload, match, sha256Hex128(body));
}

/**
 * A verified webhook, from its first store call to its answer, top to bottom: remember its
 * digest (a replay stops here) while the user's sessions are looked up; correlate; attach the
 * result to the session and lease it, or store it leased where no session matches; deliver
 * within the acknowledgement deadline; the outcome. Store failures are answered
 * `store_unavailable`, with the digest forgotten so that the sender's retry is handled.
 */
async function accept(
  context: WebhookContext,
  request: WebhookRequest,
  payload: VerificationPayload,
  match: SecretMatch,
  hashing: string | Promise<string>,
): Promise<Happened> {
  // The first webhook of a process reads the store's clock first (`storeClock`).
  const clockReading = context.clockReady();
  if (clockReading) await clockReading;
  const bodyHash = typeof hashing === 'string' ? hashing : await hashing;
  // Replays are recognised per account: an account's body never stands for another's.
  const digest = context.account === undefined ? bodyHash : `${context.account}.${bodyHash}`;
  const now = context.now();
  // Remember and find: independent, so a store across a network answers both in one round
  // trip's time.
  const finding = findSessions(context, payload, now);
  finding.catch(ignoreUnread);
  try {
    // Kept as long as any session this delivery could match is open or retained.
    const ttlMs = context.replayWindowMs + context.sessionLifetimeMs;
    if (!(await context.store.remember({ digest, ttlMs, now }))) {
      context.log.info('Replayed webhook acknowledged and not handled again.');
      return { outcome: 'replayed' };
    }
  } catch (error) {
    return storeFailed(context, error);
  }
  let result: StoredResult = {
    payload,
    source: 'webhook',
    receivedAt: now,
    secretLabel: match.label,
  };
  if (match.index > 0) noteOlderSecret(context, match.label);
  try {
    // Correlate with the sessions tracked for the user.
    const sessions = await finding;
    const correlation = correlate(payload, sessions);
    if (correlation.kind === 'duplicate') return { outcome: 'duplicate' };
    if (correlation.kind === 'ambiguous' && context.client) {
      settleByPolling(context, request, correlation.keys, result);
      return { outcome: 'ambiguous' };
    }
    const owner = context.newOwner();
    let leased: Leased | undefined;
    if (correlation.kind === 'session') {
      const { key, by } = correlation;
      // A user alone only suggests the session: the service confirms what is delivered.
      if (by === 'user' && context.confirmWebhooks) {
        const held = await leaseWithPatience(context, key, owner);
        // Closed meanwhile, or held by another worker (a poll in flight), which asks the service.
        if (typeof held === 'string') return { outcome: held };
        // Until the service answers, no handler has started: the 202's log line says which.
        let answered = false;
        const onAnswered = () => {
          answered = true;
        };
        const confirming = pollLeased(context, held, owner, {
          webhook: result,
          onAnswered,
          userRecords: sessions,
        });
        return await withAckDeadline(context, request, confirming.then(confirmed), undefined, () =>
          answered ? HANDLERS_RUNNING : CONFIRMATION_WAITING,
        );
      }
      // A token names it.
      if (by === 'token') result = Object.assign({}, result, { confirmed: true });
      const attaching = await attachLeased(context, key, result, owner);
      const { attached } = attaching;
      if (attached === 'attached') {
        leased = attaching.leased ?? (await leaseWithPatience(context, key, owner));
      } else if (attached !== 'missing') {
        // Closed, or given its result already.
        return { outcome: attached };
      }
      // Missing: the session went after it was found (erased by forgetUser, or its retention
      // ended). The webhook now matches no tracked session, and is handled as one below,
      // never stored in its place where untracked webhooks are not delivered.
    }
    if (leased === undefined) {
      // A result no tracked session vouches for: with an API client it is not delivered
      // (`untrackedWebhooks: 'ignore'`), since it may be an old one sent again; otherwise it
      // is delivered once, marked `confirmed: false`.
      if (context.untrackedWebhooks === 'ignore') {
        reportUntracked(context);
        return { outcome: 'untracked' };
      }
      leased = await insertLeased(context, result, digest, owner);
    }
    // Closed by another worker meanwhile (a poll, or confirm() on the redirect), or held by one.
    if (typeof leased === 'string') return { outcome: leased };
    // Deliver and settle; past `ackAfterMs` the answer is `202` and the handlers go on.
    const stored = leased.result ?? result;
    const superseded = hasNewerSession(leased, sessions);
    const built = completedEvent(leased, stored, context.now(), superseded);
    const event = built instanceof Promise ? await built : built;
    const delivering = deliverLeased(context, leased, owner, stored, { event });
    return await withAckDeadline(context, request, delivering, event);
  } catch (error) {
    await context.store.forget({ digest }).catch(() => undefined);
    return storeFailed(context, error);
  }
}

/**
 * Attaches the result and leases the session to `owner` in one store call, where the store
 * has `attachAndLease`; on a store without it, only attaches (the caller leases). Either way
 * a lease another worker holds (a poll in flight) is left to the caller to wait for.
 */
function attachLeased(
  context: Pick<WebhookContext, 'store' | 'leaseMs' | 'now'>,
  key: string,
  result: StoredResult,
  owner: string,
): AttachAndLeaseOutcome | Promise<AttachAndLeaseOutcome> {
  const { store, leaseMs } = context;
  if (store.attachAndLease) {
    return store.attachAndLease({ key, result, owner, leaseMs, now: context.now() });
  }
  return store.attachResult({ key, result, now: context.now() }).then((attached) => ({ attached }));
}

/** What confirming a webhook came to: one the service contradicts is never the result. */
const confirmed = (polled: PollOutcome): Happened =>
  polled.contradicted
    ? { outcome: 'contradicted' }
    : { outcome: polled.outcome, event: polled.event };

/** A body the adapter could not read as sent (or too large), refused as its kind says. */
function refuseUnread(
  context: RawBodyContext,
  headers: HeadersLike,
  body: UnreadBody,
): Happened | Promise<Happened> {
  switch (body.kind) {
    case 'too-large':
      return { outcome: body.kind, detail: String(context.maxBodyBytes) };
    case 'unavailable':
      // A setup mistake, not a per-request event, but only when the service sent the
      // request: its signature, and what polling recovers, decide whether the alarm counts it.
      return recordRawBodyRefused(context, headers, body).then(
        (): Happened => ({ outcome: body.kind, detail: body.hint }),
      );
    case 'unreadable':
      return { outcome: body.kind, detail: body.reason };
    case 'timeout':
      return { outcome: body.kind, detail: String(body.afterMs) };
  }
}

/** The payload of a verified body, or what it is instead: another event, or invalid. */
function payloadOf(body: Uint8Array): VerificationPayload | Happened {
  try {
    const json = decodeJson(body);
    const event = (json as { event?: unknown } | null)?.event;
    if (typeof event === 'string' && event !== COMPLETED_EVENT) {
      return { outcome: 'other-event', logFields: { event } };
    }
    return validateVerificationPayload(json);
  } catch (error) {
    const reason = error instanceof FaceverifyError ? error.message : 'The payload is invalid.';
    return { outcome: 'invalid-payload', detail: reason, logFields: { reason } };
  }
}

function storeFailed(context: Pick<WebhookContext, 'handlers'>, error: unknown): Happened {
  context.handlers.reportError(error, { stage: 'store' });
  return { outcome: 'store-failed', logFields: { error: messageOf(error) } };
}

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** A session leased to this worker, or why not: closed, or held by another worker. */
type Leased = TrackedSession | 'closed' | 'held';

/**
 * Waits briefly for a lease another worker holds, such as a poll already in flight.
 * Resolves `'closed'` as soon as that worker has completed the session.
 */
async function leaseWithPatience(
  context: PatienceContext,
  key: string,
  owner: string,
): Promise<Leased> {
  const { store, leaseMs, clock } = context;
  const deadline = clock.now() + Math.min(context.ackAfterMs / 2, 2000);
  for (let wait = 25; ; wait = Math.min(wait * 2, 400)) {
    const session = await store.lease({ key, owner, now: context.now(), leaseMs });
    if (session) return session;
    const current = await store.get({ key, now: context.now() });
    if (!current || !isOpen(current.state)) return 'closed';
    if (clock.now() + wait > deadline) return 'held';
    await sleepOn(clock, wait);
  }
}

// What still runs when a webhook is acknowledged at `ackAfterMs` (the `processing` log line).
const HANDLERS_RUNNING = 'Handlers are still running';
const CONFIRMATION_WAITING =
  "The service has not answered the webhook's confirmation (GET /v1/sessions/:token) yet, so no handler has started; they run once it answers, or the next sweep asks again";

/**
 * `work`'s outcome, or `ack-deadline` once `ackAfterMs` has passed without one: the work goes
 * on in the background, kept alive by the platform's `waitUntil` where there is one.
 */
function withAckDeadline(
  context: AckContext,
  request: WebhookRequest,
  work: Promise<Happened>,
  event?: VerificationCompletedEvent,
  running: () => string = () => HANDLERS_RUNNING,
): Promise<Happened> {
  return new Promise<Happened>((resolve, reject) => {
    let answered = false;
    const timer = context.ackTimers.start(() => {
      answered = true;
      // Only work that outlives the response needs the platform to keep it alive.
      request.waitUntil?.(work);
      resolve({
        outcome: 'ack-deadline',
        event,
        detail: running(),
        logFields: { ackAfterMs: context.ackAfterMs },
      });
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

/**
 * The sessions tracked for the webhook's user, looked up while its digest is remembered: the
 * two calls are independent, so a store across a network answers both in one round trip's
 * time. A replay never reads the answer; a rejection here is only seen if it is read.
 */
function findSessions(
  context: Pick<WebhookContext, 'store' | 'account' | 'maxOpenPerUser'>,
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

/** A lookup whose answer is not needed (a replay, or a failed remember) fails unseen. */
function ignoreUnread(): void {}

/** Tells the `error` handlers that an untracked webhook was not delivered (its row logs it). */
function reportUntracked(context: Pick<WebhookContext, 'handlers'>): void {
  const { message } = WEBHOOK_ANSWERS.untracked.log;
  const error = Object.assign(new Error(message), { code: 'webhook_untracked' });
  context.handlers.reportError(error, { stage: 'confirm', code: 'webhook_untracked' });
}

/**
 * Several open sessions of one user: the service's answer for each is what is delivered. The
 * webhook is kept with each that cannot be asked now (`userOnly`): whoever delivers its
 * answer later then knows a webhook came, for the `webhooks_missing` alarm.
 */
function settleByPolling(
  context: PollContext & Pick<WebhookContext, 'newOwner'>,
  request: WebhookRequest,
  keys: string[],
  webhook: StoredResult,
): void {
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
      if (session) await pollLeased(context, session, owner, { userOnly: webhook });
    }),
  ).catch((error: unknown) => context.handlers.reportError(error, { stage: 'poll' }));
  request.waitUntil?.(settling);
}

/**
 * Stores a delivery matched to no session, already leased to `owner`: one store call
 * instead of two on the common path, and no window in which another worker could take it.
 */
async function insertLeased(
  context: DisplacedContext &
    PatienceContext &
    Pick<WebhookContext, 'account' | 'replayWindowMs' | 'maxOpenPerUser'>,
  result: StoredResult,
  digest: string,
  owner: string,
): Promise<Leased> {
  const now = context.now();
  const record: TrackedSession = {
    key: unmatchedKey(digest),
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
