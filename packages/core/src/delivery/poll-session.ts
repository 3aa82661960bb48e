import { ApiError, NetworkError, RateLimitError, TimeoutError } from '../base/errors.js';
import type { Client, SessionReadOptions, SessionSnapshot } from '../client/index.js';
import {
  ACCOUNT_ATTRIBUTE,
  type DeliverySource,
  type PollRequestOutcome,
  type ReceiverSpanAttributes,
} from '../operations/telemetry/receiver-telemetry.js';
import type { StoredResult, TrackedSession } from '../store/store.js';
import type { VerificationPayload } from '../wire/payload/types.js';
import { sameOutcome } from './correlate.js';
import { type DeliverContext, type DeliveryOutcome, deliverLeased } from './deliver.js';
import type { DeliveryContext } from './delivery-context.js';
import type { VerificationCompletedEvent } from './events.js';
import { type ExpireContext, expireLeased } from './expire-session.js';
import { keepLease } from './keep-lease.js';
import { delayAt } from './schedule.js';
import { sessionClient } from './session-client.js';
import { tokenIdOf } from './token-id.js';

/**
 * What looking at a leased session works with: delivery's, giving a session up, the clients
 * to ask the service with, and the schedules of polls and of sessions left to another instance.
 */
export type PollContext = DeliverContext &
  ExpireContext &
  Pick<DeliveryContext, 'client' | 'accounts' | 'pollScheduleMs' | 'sweepIntervalMs'>;

/** What one look at a leased session came to, and what the service said of it. */
export interface PollOutcome {
  /** `left`: this instance cannot open the session's token; it is left to one that can. */
  outcome: DeliveryOutcome | 'pending' | 'expired' | 'retry-later' | 'left';
  status: SessionSnapshot['status'] | 'unknown';
  result?: VerificationPayload;
  /** The event delivered, when this look delivered one. */
  event?: VerificationCompletedEvent;
  /** A result given to confirm (a webhook) that the service contradicted. */
  contradicted?: boolean;
  /** Why the service could not be asked (`retry-later`). */
  error?: unknown;
}

/** How a leased session is looked at. */
export interface PollOptions {
  /**
   * A result to confirm with the service before it is delivered (a webhook matched by
   * `external_user_id`). Delivered only when the service agrees.
   */
  webhook?: StoredResult;
  /**
   * A webhook that named the session's user while the user had several open sessions: maybe
   * another session's, so neither delivered nor contradicted. While the service cannot be
   * asked it is kept with the session (`userOnly`), so that whoever delivers the service's
   * answer, on any instance and however late, knows a webhook came (`polled_after_webhook`).
   */
  userOnly?: StoredResult;
  /** Ask the service even when a result is already stored (`confirm()`). */
  ask?: boolean;
  /** How the service is asked: `'interactive'` for `confirm()`, which someone waits on. */
  priority?: SessionReadOptions['priority'];
  /** Who delivers a result found, for metrics (`'confirm'`); default: how it arrived. */
  via?: DeliverySource;
  /**
   * Called once the service answered, before any handler runs: until then a webhook's
   * acknowledgement deadline waits on the service, not on handlers.
   */
  onAnswered?: () => void;
  /** The user's records, when the caller just read them (a webhook): `superseded` is told by them. */
  userRecords?: readonly TrackedSession[];
}

/**
 * Works on one session this worker leased: delivers a stored result, or asks the service
 * (`GET /v1/sessions/:token`) and delivers a completed result down the same path as a
 * webhook, or reschedules, or gives the session up when its lifetime is over. A result to
 * confirm that the service contradicts is reported as `webhook_contradicted` and never
 * delivered: the service's own answer is.
 */
export function pollLeased(
  context: PollContext,
  session: TrackedSession,
  owner: string,
  options: PollOptions = {},
): Promise<PollOutcome> {
  const { telemetry } = context;
  if (!telemetry) return lookAt(context, session, owner, options);
  const describe = context.includePersonalData ? describePollWithStatus : describePoll;
  const { account } = session;
  return telemetry.span(
    'poll',
    () => lookAt(context, session, owner, options),
    account === undefined
      ? describe
      : (polled) => Object.assign(describe(polled), { [ACCOUNT_ATTRIBUTE]: account }),
  );
}

function describePoll(polled: PollOutcome): ReceiverSpanAttributes {
  return { 'faceverify.poll.result': polled.outcome };
}

function describePollWithStatus(polled: PollOutcome): ReceiverSpanAttributes {
  return Object.assign(describePoll(polled), { 'faceverify.session.status': polled.status });
}

async function lookAt(
  context: PollContext,
  session: TrackedSession,
  owner: string,
  options: PollOptions,
): Promise<PollOutcome> {
  const { store, log, telemetry } = context;
  // What this instance cannot read, it neither delivers nor destroys.
  if (session.unreadableToken) {
    context.activity.record(
      'token_key_missing',
      `token key ${session.unreadableToken.keyIds.join(', ')}`,
      session.account,
    );
    return leave(context, session, owner, options.webhook);
  }
  // Polled as any: only webhooks naming its user miss it (see TrackedSession.userKeyMissing).
  if (session.userKeyMissing) {
    context.activity.record(
      'user_key_missing',
      `token key ${session.userKeyMissing.keyIds.join(', ')}`,
      session.account,
    );
  }
  const kept = options.webhook ?? session.result;
  // A webhook of the user's that may be another session's claims nothing of this one.
  const claimed = kept?.userOnly ? undefined : kept;
  const userOnly = kept?.userOnly ? kept : options.userOnly && markedUserOnly(options.userOnly);
  const awaiting = session.result?.awaitingConfirmation === true;
  if (session.result && !awaiting && !options.ask && !options.webhook) {
    return deliver(context, session, owner, session.result, session.result.payload.status, options);
  }
  if (!session.token) {
    // A delivery matched to no session (`webhook:<digest>`): its result is all there is, and
    // only a Receiver that delivers untracked webhooks stores one. A claim waiting for the
    // service's word is never delivered without it.
    if (session.result && !awaiting) {
      return deliver(
        context,
        session,
        owner,
        session.result,
        session.result.payload.status,
        options,
      );
    }
    await store.settle({
      key: session.key,
      owner,
      update: { state: 'expired', retainMs: 0 },
      now: context.now(),
    });
    return { outcome: 'expired', status: 'unknown' };
  }
  let client: Client | undefined;
  try {
    client = await sessionClient(context, session, 'Polling a session');
  } catch (error) {
    // The resolver failed: the session is asked about once it answers again.
    context.handlers.reportError(error, { stage: 'account', ...accountOf(session) });
    return leave(context, session, owner, options.webhook);
  }
  if (!client) return leaveWithoutAccount(context, session, owner, options.webhook);
  let snapshot: SessionSnapshot;
  // A poll may wait out 429s and retries for longer than a lease lasts.
  const stopRenewal = keepLease(context, session.key, owner);
  const askedAt = context.now();
  try {
    snapshot = await client.getSession(session.token, {
      priority: options.priority,
      // A webhook's sender waits for the answer: its result is kept instead (below). Among
      // several accounts a sweep never waits out one account's limit either: the session is
      // due again when the service says, and the sweep's workers go on with other accounts.
      onRateLimit: options.webhook || context.accounts ? 'throw' : undefined,
      onRateLimitWait: telemetry && (() => telemetry.rateLimitWaited('retried', session.account)),
    });
  } catch (error) {
    stopRenewal();
    const now = context.now();
    telemetry?.polled(failedPoll(error), now - askedAt, session.account);
    // A 404 is the service's answer about this session, not its API failing.
    if (!(error instanceof ApiError && error.serviceStatus === 404)) {
      context.activity.record('api_failed', describeFailure(error), session.account);
    }
    if (error instanceof ApiError && error.serviceStatus === 404) {
      if (options.webhook) contradicted(context, session, 'the service does not know the session');
      await expireLeased(context, session, owner, 'not_found');
      return { outcome: 'expired', status: 'unknown', contradicted: !!options.webhook };
    }
    const rateLimited = error instanceof RateLimitError;
    if (rateLimited) telemetry?.rateLimitWaited('rescheduled', session.account);
    const wait = rateLimited
      ? Math.max(error.retryAfterMs, 1)
      : delayAt(context.pollScheduleMs, session.attempts);
    context.handlers.reportError(error, { stage: 'poll', ...tokenIdOf(session.key) });
    // A 429 is the service pacing us, waited out as asked: expected, so debug. Other failures
    // are warnings (and reported through `error` handlers).
    const level = rateLimited ? 'debug' : 'warn';
    log[level]('Polling a session failed; it will be polled again.', {
      sessionToken: session.token,
      retryInMs: wait,
      error: error instanceof Error ? error.message : String(error),
    });
    // A webhook waiting for the service's word keeps its result, so nothing is lost while
    // the service cannot be asked; it is still delivered only once the service agrees.
    const claim = options.webhook ?? userOnly ?? (awaiting ? session.result : undefined);
    // The session's lifetime bounds every path: a service that cannot be asked until then
    // cannot confirm a claim either, and a pending session is given up as it would be.
    if (now >= session.expiresAt) {
      if (claim && !claim.userOnly)
        contradicted(context, session, 'the service could not be asked within its lifetime');
      await expireLeased(context, session, owner, 'lifetime');
      return { outcome: 'expired', status: 'unknown', error };
    }
    await store.settle({
      key: session.key,
      owner,
      update: claim
        ? {
            state: 'delivering',
            dueAt: now + wait,
            attempts: session.attempts,
            result: Object.assign({}, claim, { awaitingConfirmation: true }),
          }
        : { state: 'pending', dueAt: now + wait, attempts: session.attempts },
      now,
    });
    return { outcome: 'retry-later', status: 'unknown', error };
  }
  stopRenewal();
  options.onAnswered?.();
  const now = context.now();
  telemetry?.polled(
    snapshot.result ? 'completed' : snapshot.status === 'expired' ? 'expired' : 'pending',
    now - askedAt,
    session.account,
  );
  if (snapshot.result) {
    // A record kept `delivering` while its webhook awaited the service counts polls, not
    // deliveries: the service's answer is delivered for the first time (attempt 1).
    const asked = awaiting ? Object.assign({}, session, { attempts: 0 }) : session;
    if (claimed && sameOutcome(claimed.payload, snapshot.result)) {
      const { awaitingConfirmation: _, ...agreed } = claimed;
      const confirmed = Object.assign(agreed, { confirmed: true });
      return deliver(context, asked, owner, confirmed, snapshot.status, options);
    }
    const isContradicted = claimed !== undefined;
    if (isContradicted) contradicted(context, session, `the service says ${snapshot.status}`);
    const result: StoredResult = { payload: snapshot.result, source: 'poll', receivedAt: now };
    if (userOnly) context.activity.record('polled_after_webhook', undefined, session.account);
    const polled = await deliver(context, asked, owner, result, snapshot.status, options);
    return Object.assign({}, polled, { contradicted: isContradicted });
  }
  if (claimed) contradicted(context, session, `the service says ${snapshot.status}`);
  if (snapshot.status === 'expired' || now >= session.expiresAt) {
    await expireLeased(context, session, owner, 'lifetime');
    return { outcome: 'expired', status: 'expired', contradicted: claimed !== undefined };
  }
  const attempts = session.attempts + 1;
  const dueAt = Math.min(now + delayAt(context.pollScheduleMs, attempts), session.expiresAt);
  await store.settle({
    key: session.key,
    owner,
    // A kept webhook waits for the service with the session, polled on the same schedule.
    update: { state: awaiting ? 'delivering' : 'pending', dueAt, attempts },
    now,
  });
  return { outcome: 'pending', status: 'pending', contradicted: claimed !== undefined };
}

/**
 * Hands a session this instance cannot open back, unchanged but for a due time a little later,
 * so that an instance that lists its key takes it; a webhook's claim is kept with it, to be
 * confirmed there. Jittered, so that this instance's sweeps do not always come first.
 */
async function leave(
  context: Pick<DeliveryContext, 'store' | 'now' | 'sweepIntervalMs'>,
  session: TrackedSession,
  owner: string,
  claim: StoredResult | undefined,
): Promise<PollOutcome> {
  const now = context.now();
  const delay = context.sweepIntervalMs * (1 + Math.random());
  const result =
    session.result ?? (claim && Object.assign({}, claim, { awaitingConfirmation: true }));
  await context.store.settle({
    key: session.key,
    owner,
    update: {
      // A stored result this instance cannot open stays stored: `delivering` keeps it waiting
      // for the delay, where `pending` would make the store deliver it at once, to this instance.
      state: result || session.unreadableToken?.hasResult ? 'delivering' : 'pending',
      dueAt: now + delay,
      attempts: session.attempts,
      ...(result ? { result } : {}),
    },
    now,
  });
  return { outcome: 'left', status: 'unknown' };
}

/**
 * A session of an account this Receiver does not have: left open and unpolled, as `leave`
 * leaves one it cannot read, and counted toward the `account_missing` alarm.
 */
function leaveWithoutAccount(
  context: Pick<DeliveryContext, 'store' | 'now' | 'sweepIntervalMs' | 'activity'>,
  session: TrackedSession,
  owner: string,
  claim: StoredResult | undefined,
): Promise<PollOutcome> {
  context.activity.record(
    'account_missing',
    session.account === undefined ? 'sessions of no account' : `account "${session.account}"`,
    session.account,
  );
  return leave(context, session, owner, claim);
}

/** A webhook kept with one of its user's several open sessions (`PollOptions.userOnly`). */
const markedUserOnly = (webhook: StoredResult): StoredResult =>
  Object.assign({}, webhook, { awaitingConfirmation: true, userOnly: true });

const accountOf = (session: TrackedSession) =>
  session.account === undefined ? {} : { account: session.account };

async function deliver(
  context: DeliverContext,
  session: TrackedSession,
  owner: string,
  result: StoredResult,
  status: PollOutcome['status'],
  { via, userRecords }: PollOptions,
): Promise<PollOutcome> {
  const { outcome, event } = await deliverLeased(
    context,
    session,
    owner,
    result,
    Object.assign(
      {},
      via === undefined ? undefined : { via },
      userRecords === undefined ? undefined : { userRecords },
    ),
  );
  return { outcome, status, result: result.payload, event };
}

/** What a failed call was, for the `api_failing` alarm: no token, no body, no user. */
function describeFailure(error: unknown): string {
  if (error instanceof RateLimitError) return 'rate limited (429)';
  if (error instanceof ApiError) return `HTTP ${error.serviceStatus}`;
  if (error instanceof TimeoutError) return `no answer within ${error.timeoutMs} ms`;
  if (error instanceof NetworkError) return 'no connection';
  return 'failed';
}

/** What a `GET /v1/sessions/:token` that threw came to. */
function failedPoll(error: unknown): PollRequestOutcome {
  if (error instanceof RateLimitError) return 'rate_limited';
  if (error instanceof ApiError && error.serviceStatus === 404) return 'not_found';
  return 'failed';
}

/** Reports a result the service contradicts: it is never delivered as the session's result. */
function contradicted(
  context: Pick<DeliveryContext, 'log' | 'handlers'>,
  session: TrackedSession,
  why: string,
): void {
  const message = `A webhook for this session was not confirmed by the service (${why}); it was not delivered. A replayed webhook of an earlier session looks like this.`;
  context.log.warn(message, { sessionToken: session.token });
  const error = Object.assign(new Error(message), { code: 'webhook_contradicted' });
  context.handlers.reportError(error, {
    stage: 'confirm',
    code: 'webhook_contradicted',
    ...tokenIdOf(session.key),
  });
}
