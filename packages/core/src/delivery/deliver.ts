import { hmacSha256 } from '#hmac';
import { sleepOn } from '../base/clock/clock.js';
import type { DeliverySource } from '../operations/telemetry/receiver-telemetry.js';
import { digestOfUnmatched, isUnmatchedKey } from '../store/record-keys.js';
import { storedKeyOf } from '../store/sealed/stored-key.js';
import {
  isConfirmed,
  isTransactional,
  type SettleOptions,
  type SettleUpdate,
  type StoredResult,
  type TrackedSession,
  type TransactionalStore,
} from '../store/store.js';
import { imageLinkLiveAt, withImageLifetime } from '../wire/payload/front-image-lifetime.js';
import { toHex } from '../wire/signature/hex.js';
import type { DeliveryContext } from './delivery-context.js';
import type { VerificationCompletedEvent, VerificationUndeliverableEvent } from './events.js';
import { keepLease, type LeaseContext, stillLeased } from './keep-lease.js';
import { delayAt } from './schedule.js';
import { withoutImageLink } from './stored-image-link.js';
import { isSessionRecord, isSuperseded } from './superseded.js';
import { tokenIdOf } from './token-id.js';

/**
 * What a delivery came to: handlers succeeded, or failed; the session went to another worker
 * (`lease-lost`); or its record was erased meanwhile (`erased`: `forgetUser`, or the end of
 * its retention), so nobody delivers it; or its user had started a newer session and
 * `supersededResults` is `'skip'` (`superseded`): recorded as done without the handlers.
 */
export type DeliveryOutcome = 'delivered' | 'failed' | 'lease-lost' | 'erased' | 'superseded';

/** What reporting a result given up works with: the handlers, and what counts it. */
export type UndeliverableContext = Pick<DeliveryContext, 'handlers' | 'activity' | 'telemetry'>;

/** What recording a delivery's success works with: the store, and time to wait out its failures. */
type SettleContext = Pick<DeliveryContext, 'store' | 'now' | 'clock' | 'leaseMs'>;

/**
 * What delivering a leased result to the handlers works with: the lease kept meanwhile, the
 * handlers and what counts and logs their runs, the retries and the retention after them.
 */
export type DeliverContext = LeaseContext &
  UndeliverableContext &
  Pick<
    DeliveryContext,
    | 'clock'
    | 'log'
    | 'refusedBodies'
    | 'includePersonalData'
    | 'replayWindowMs'
    | 'retryScheduleMs'
    | 'maxDeliveryAttempts'
    | 'maxOpenPerUser'
    | 'supersededResults'
  >;

/** What the caller of `deliverLeased` already has, so that it is not worked out again. */
export interface DeliveryKnown {
  /** The event, built already (it hashes the key for the id, and says `superseded`). */
  event?: VerificationCompletedEvent;
  /** Who delivers, for metrics; default: how the result arrived (`result.source`). */
  via?: DeliverySource;
  /** The user's records as `findByUser` listed them just before, to tell `superseded` by. */
  userRecords?: readonly TrackedSession[];
}

/** What a delivery came to, with the event the handlers saw. */
export interface Delivery {
  outcome: DeliveryOutcome;
  event: VerificationCompletedEvent;
}

const encoder = new TextEncoder();

/**
 * A stable id for a result, the same in every process and on every delivery of it (each
 * retry, and a dead letter delivered again after it closed and dropped its token), that
 * does not reveal the session token (a credential): 128 bits of an HMAC-SHA256 of the key
 * the store holds the record under, itself a keyed hash of the token. A delivery matched to
 * no session is keyed by its signature digest, which is no secret, and used as it is.
 */
function eventId(session: TrackedSession): string | Promise<string> {
  const key = storedKeyOf(session);
  if (isUnmatchedKey(key)) return `evt_${digestOfUnmatched(key).slice(0, 32)}`;
  const digest = hmacSha256('faceverify.event-id', encoder.encode(key));
  return digest instanceof Uint8Array ? idOf(digest) : digest.then(idOf);
}

const idOf = (digest: Uint8Array) => `evt_${toHex(digest).slice(0, 32)}`;

/**
 * The event handlers receive for a session's result, built at `now`: past the image link's
 * lifetime, without the link (see `FrontImageState`); `superseded` when its user has started a
 * newer session (see `isSuperseded`). Synchronous where the runtime hashes synchronously
 * (Node), so the hot path awaits nothing for it.
 */
export function completedEvent(
  session: TrackedSession,
  result: StoredResult,
  now: number,
  superseded: boolean,
): VerificationCompletedEvent | Promise<VerificationCompletedEvent> {
  const id = eventId(session);
  return typeof id === 'string'
    ? eventWithId(session, result, id, now, superseded)
    : id.then((value) => eventWithId(session, result, value, now, superseded));
}

function eventWithId(
  session: TrackedSession,
  result: StoredResult,
  id: string,
  now: number,
  superseded: boolean,
): VerificationCompletedEvent {
  const { data, frontImage } = withImageLifetime(result.payload, result.receivedAt, now);
  const event: VerificationCompletedEvent = {
    type: 'verification.completed',
    id,
    source: result.source,
    receivedAt: new Date(result.receivedAt),
    data,
    frontImage,
    attempt: session.state === 'delivering' ? session.attempts + 1 : 1,
    confirmed: isConfirmed(result),
    superseded,
  };
  if (isSessionRecord(session)) event.sessionStartedAt = new Date(session.createdAt);
  if (session.account !== undefined) event.account = session.account;
  if (session.token) event.sessionToken = session.token;
  if (result.secretLabel) event.secretLabel = result.secretLabel;
  return event;
}

/**
 * Runs the `verification.completed` handlers for a session this worker holds the lease
 * on, then records the outcome: completed after success, or kept with a retry time after
 * a failure, or closed as `failed` once `maxDeliveryAttempts` is used up. The result was
 * stored before (or is stored with) the failure, so nothing is lost; and only a lease holder
 * delivers, so nothing is delivered twice. Transactional handlers run inside the store's
 * transaction together with the record of success (`settleWith`).
 */
export async function deliverLeased(
  context: DeliverContext,
  session: TrackedSession,
  owner: string,
  result: StoredResult,
  known: DeliveryKnown = {},
): Promise<Delivery> {
  const { handlers, log } = context;
  const event = known.event ?? (await eventOf(context, session, result, known.userRecords));
  const leased = stillLeased(context, session.key, owner, session.lease?.until);
  if (leased !== true && !(await leased)) {
    if (await recordKept(context, session)) {
      log.warn('A lease lapsed before delivery; another worker delivers this result.', {
        sessionToken: session.token,
      });
      return { outcome: 'lease-lost', event };
    }
    log.info(
      "A result's session was erased (forgetUser) before it was delivered: acknowledged, not delivered.",
      { sessionToken: session.token },
    );
    return { outcome: 'erased', event };
  }
  if (event.superseded && context.supersededResults === 'skip') {
    return skipSuperseded(context, session, owner, result, event, known.via);
  }
  if (handlers.count('verification.completed') === 0) {
    log.warn('No verification.completed handler is registered; the result is acknowledged.', {
      sessionToken: session.token,
    });
  }
  // A session's record is kept for the replay window so a late webhook of a result that
  // came by polling is recognised, and an older session's result knows it is superseded (a
  // dead letter delivered again too, though it no longer holds its token); a delivery matched
  // to no session has nothing to poll, and its digest alone already stops replays.
  // The closed record keeps the result without its image link: the handlers had it.
  const success: SettleUpdate = isSessionRecord(session)
    ? {
        state: 'completed',
        retainMs: context.replayWindowMs,
        result: closedResult(result, event.superseded ? 'delivered' : undefined),
      }
    : { state: 'completed', retainMs: 0 };
  // Long handlers keep their lease alive, so no other worker starts the same delivery: the
  // renewal is armed only once a handler returned something to wait for, or the handlers run
  // in the store's transaction (as long as it takes), never for handlers that return at once.
  let stopRenewal: (() => void) | undefined;
  let settled: boolean;
  const startedAt = context.now();
  try {
    const running = handlers.run('verification.completed', event);
    if (running || handlers.hasTransactional()) {
      stopRenewal = keepLease(context, session.key, owner);
    }
    // Transactional handlers hold the record's row: their outcome commits with it.
    if (running && result.source === 'poll' && !session.result && !handlers.hasTransactional()) {
      keepPolledResult(context, session, result);
    }
    if (running) await running;
    // Recorded: with transactional handlers in their transaction; else in one store call,
    // awaited here (no promise of its own), and a failure waited out.
    const { store } = context;
    if (handlers.hasTransactional() && isTransactional(store)) {
      const settling = { key: session.key, owner, update: success, now: context.now() };
      settled = await settleInTransaction(store, handlers, settling, event);
    } else {
      const now = context.now();
      try {
        settled = await store.settle({ key: session.key, owner, update: success, now });
      } catch (error) {
        settled = await waitOutSettle(context, session.key, owner, success, now, error, event);
      }
    }
  } catch (error) {
    stopRenewal?.();
    // A success the store could not record is no handler failure.
    context.telemetry?.handlerRan(
      context.now() - startedAt,
      !(error instanceof SettleFailure),
      session.account,
    );
    return failedDelivery(context, session, owner, result, event, error);
  }
  stopRenewal?.();
  context.telemetry?.handlerRan(context.now() - startedAt, false, session.account);
  if (settled) {
    context.activity.record(
      result.source === 'poll' ? 'delivered_by_poll' : 'delivered_by_webhook',
      undefined,
      session.account,
    );
    if (result.source === 'poll') {
      context.refusedBodies.recovered(result.payload, session.account);
    }
    context.telemetry?.delivered(
      known.via ?? result.source,
      context.now() - session.createdAt,
      session.account,
    );
  }
  if (settled && log.enabled('info')) {
    log.info('Verification result delivered.', {
      sessionToken: session.token,
      source: result.source,
      ...(context.includePersonalData ? { status: result.payload.status } : {}),
    });
  }
  if (settled) return { outcome: 'delivered', event };
  // Another worker took the session over: it records the result.
  if (await recordKept(context, session)) return { outcome: 'lease-lost', event };
  // The handlers had it: what they wrote may outlive the erasure that ran meanwhile.
  log.warn(
    "A result was delivered while its user's records were being erased (forgetUser): erase again what your handlers stored for that user.",
    { sessionToken: session.token },
  );
  return { outcome: 'delivered', event };
}

/** The event of a delivery whose caller built none: `superseded` read from the store if need be. */
async function eventOf(
  context: DeliverContext,
  session: TrackedSession,
  result: StoredResult,
  userRecords: readonly TrackedSession[] | undefined,
): Promise<VerificationCompletedEvent> {
  const telling = isSuperseded(context, session, userRecords);
  const superseded = typeof telling === 'boolean' ? telling : await telling;
  const built = completedEvent(session, result, context.now(), superseded);
  return built instanceof Promise ? await built : built;
}

/**
 * The result a record closes with: without its image link (the handlers had it, or never
 * will), and marked when its user had started a newer session, for `waitForResult` and
 * `confirm()` to say.
 */
function closedResult(result: StoredResult, superseded: StoredResult['superseded']): StoredResult {
  const kept = withoutImageLink(result);
  return superseded ? Object.assign({}, kept, { superseded }) : kept;
}

/**
 * Settles a result whose user had started a newer session, without the handlers
 * (`supersededResults: 'skip'`): closed as done for the replay window, as a delivery is (a late
 * copy of it is a duplicate), so it is never retried nor a dead letter; then reported: a
 * warning (no personal data), the telemetry's count, and `verification.superseded`.
 */
async function skipSuperseded(
  context: DeliverContext,
  session: TrackedSession,
  owner: string,
  result: StoredResult,
  event: VerificationCompletedEvent,
  via: DeliverySource | undefined,
): Promise<Delivery> {
  const { handlers, log } = context;
  const settled = await context.store.settle({
    key: session.key,
    owner,
    update: {
      state: 'completed',
      retainMs: context.replayWindowMs,
      result: closedResult(result, 'skipped'),
    },
    now: context.now(),
  });
  // Another worker took the session over, or it was erased: whoever holds it decides.
  if (!settled) return { outcome: 'lease-lost', event };
  const source = via ?? result.source;
  log.warn(
    "A result was not handed to the handlers: its user has started a newer session since (supersededResults: 'skip'). It is passed to verification.superseded handlers.",
    { sessionToken: session.token, source, eventId: event.id },
  );
  context.telemetry?.superseded?.(source, session.account);
  try {
    await handlers.run('verification.superseded', { type: 'verification.superseded', event });
  } catch (error) {
    handlers.reportError(error, {
      stage: 'superseded-handler',
      eventId: event.id,
      ...tokenIdOf(session.key),
    });
  }
  return { outcome: 'superseded', event };
}

/**
 * Stores a result polling found while its handlers run on (they returned a promise): held
 * only by this process until their success is recorded, it would go with the process, and
 * whoever takes the session over would have to ask the service again, which may not answer
 * before the session's lifetime ends (then it is given up). Stored, it is delivered from the
 * store. The lease stays this worker's (`attachResult` leaves a leased record to its owner);
 * a settle that comes first closes the record, and this finds it closed.
 */
function keepPolledResult(
  context: Pick<DeliverContext, 'store' | 'now'>,
  session: TrackedSession,
  result: StoredResult,
): void {
  try {
    context.store
      .attachResult({ key: session.key, result, now: context.now() })
      .catch(() => undefined);
  } catch {
    // A store that throws instead of rejecting: the result is polled again, as before.
  }
}

/**
 * Whether the record of a session whose lease this worker lost is still in the store (another
 * worker holds it), or is gone: erased by `forgetUser`, or its retention ended, so nobody
 * delivers it. A store that cannot be read now is taken to keep it.
 */
function recordKept(
  context: Pick<DeliverContext, 'store' | 'now'>,
  session: TrackedSession,
): Promise<boolean> {
  return context.store.get({ key: session.key, now: context.now() }).then(
    (current) => current !== undefined,
    () => true,
  );
}

/**
 * Records a success with transactional handlers: they run in the same transaction as the
 * record, so their writes and `completed` commit together or not at all.
 */
function settleInTransaction(
  store: TransactionalStore,
  handlers: DeliveryContext['handlers'],
  settling: SettleOptions,
  event: VerificationCompletedEvent,
): Promise<boolean> {
  return store
    .settleWith(settling, async (transaction) => {
      await handlers.run('verification.completed', event, { value: transaction });
    })
    .then((outcome) => outcome.settled);
}

/**
 * Records a success the store failed to record at first: waited out for as long as it takes,
 * the lease kept meanwhile. A store that never records it is reported, and the handlers'
 * success is no failure of theirs (`SettleFailure`).
 */
function waitOutSettle(
  context: SettleContext & LeaseContext & Pick<DeliveryContext, 'handlers'>,
  key: string,
  owner: string,
  update: SettleUpdate,
  firstTriedAt: number,
  error: unknown,
  event: VerificationCompletedEvent,
): Promise<boolean> {
  const stopRenewal = keepLease(context, key, owner);
  return settleAfterFailure(context, key, owner, update, firstTriedAt, error).then(
    (settled) => {
      stopRenewal();
      return settled;
    },
    (failure: unknown) => {
      stopRenewal();
      // Handlers ran; the failure to record it is reported, and the lease keeps others away.
      context.handlers.reportError(failure, {
        stage: 'store',
        eventId: event.id,
        ...tokenIdOf(key),
      });
      throw new SettleFailure(failure);
    },
  );
}

/** The record of a success could not be written; the handlers themselves succeeded. */
class SettleFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('The store failed to record a delivered result.');
  }
}

async function failedDelivery(
  context: DeliverContext,
  session: TrackedSession,
  owner: string,
  result: StoredResult,
  event: VerificationCompletedEvent,
  error: unknown,
): Promise<Delivery> {
  const { store, handlers, log } = context;
  const { attempt } = event;
  const now = context.now();
  // A success the store could not record counts as an attempt too (it was reported as a
  // store error already): otherwise a value the store refuses is delivered again forever.
  const unrecorded = error instanceof SettleFailure;
  const cause = unrecorded ? error.cause : error;
  if (!unrecorded) {
    context.activity.record('handler_failed', undefined, session.account);
    handlers.reportError(error, {
      stage: 'handler',
      event,
      eventId: event.id,
      ...tokenIdOf(session.key),
    });
  }
  const exhausted = attempt >= context.maxDeliveryAttempts;
  const what = unrecorded
    ? 'The store could not record a delivered result'
    : 'A verification.completed handler failed';
  log.error(
    exhausted
      ? `${what} on its last attempt; the result is given up as undeliverable.`
      : `${what}; the result is kept for a retry.`,
    {
      sessionToken: session.token,
      attempt,
      error: cause instanceof Error ? cause.message : String(cause),
    },
  );
  try {
    if (!exhausted) {
      const dueAt = now + delayAt(context.retryScheduleMs, attempt - 1);
      await store.settle({
        key: session.key,
        owner,
        update: {
          state: 'delivering',
          dueAt,
          attempts: attempt,
          // A retry due after the link's 15 minutes would not hand it over: not kept for it.
          result: imageLinkLiveAt(result.receivedAt, dueAt) ? result : withoutImageLink(result),
        },
        now,
      });
      return { outcome: 'failed', event };
    }
    const closed = await store.settle({
      key: session.key,
      owner,
      update: {
        state: 'failed',
        retainMs: context.replayWindowMs,
        attempts: attempt,
        result: withoutImageLink(result),
      },
      now,
    });
    if (closed)
      await emitUndeliverable(context, {
        type: 'verification.undeliverable',
        reason: 'attempts_exhausted',
        event,
        error: cause,
      });
  } catch (storeError) {
    handlers.reportError(storeError, {
      stage: 'store',
      eventId: event.id,
      ...tokenIdOf(session.key),
    });
  }
  return { outcome: 'failed', event };
}

/** Emits `verification.undeliverable`; a handler of it that throws is reported, not retried. */
export async function emitUndeliverable(
  context: UndeliverableContext,
  event: VerificationUndeliverableEvent,
): Promise<void> {
  context.activity.record('undeliverable', undefined, event.event.account);
  context.telemetry?.undeliverable(event.reason, event.event.account);
  try {
    await context.handlers.run('verification.undeliverable', event);
  } catch (error) {
    context.handlers.reportError(error, {
      stage: 'undeliverable-handler',
      eventId: event.event.id,
      ...tokenIdOf(event.event.sessionToken),
    });
  }
}

/**
 * Records a success after the first try failed. Handlers already ran, so giving up here would
 * let the lease lapse and the result be delivered again: a store outage (Redis restarting) is
 * waited out, with backoff, for as long as the lease keeps other workers away.
 */
async function settleAfterFailure(
  context: SettleContext,
  key: string,
  owner: string,
  update: SettleUpdate,
  firstTriedAt: number,
  firstError: unknown,
): Promise<boolean> {
  const giveUpAt = firstTriedAt + context.leaseMs;
  let error = firstError;
  for (let wait = 50; context.now() + wait < giveUpAt; wait = Math.min(wait * 2, 1000)) {
    await sleepOn(context.clock, wait);
    try {
      return await context.store.settle({ key, owner, update, now: context.now() });
    } catch (failure) {
      error = failure;
    }
  }
  throw error;
}
