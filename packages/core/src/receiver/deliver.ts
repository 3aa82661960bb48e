import { hmacSha256 } from '#hmac';
import { toHex } from '../signature/hex.js';
import type { SettleUpdate, StoredResult, TrackedSession } from '../store/store.js';
import type { ReceiverContext } from './context.js';
import type { VerificationCompletedEvent } from './events.js';
import { keepLease, stillLeased } from './keep-lease.js';
import { delayAt } from './options.js';

export type DeliveryOutcome = 'delivered' | 'failed' | 'lease-lost';

/** What a delivery came to, with the event the handlers saw. */
export interface Delivery {
  outcome: DeliveryOutcome;
  event: VerificationCompletedEvent;
}

const encoder = new TextEncoder();

/** Key prefix of a delivery matched to no session: `webhook:<signature digest>`. */
export const UNMATCHED_PREFIX = 'webhook:';

/**
 * A stable id for a result, the same in every process, that does not reveal the session
 * token (a credential): 128 bits of an HMAC-SHA256 of the token. A delivery matched to no
 * session is keyed by its signature digest, which is no secret, and used as it is.
 */
async function eventId(session: TrackedSession): Promise<string> {
  if (!session.token)
    return `evt_${session.key.slice(session.key.indexOf(':') + 1, 33 + session.key.indexOf(':'))}`;
  const digest = await hmacSha256('faceverify.event-id', encoder.encode(session.key));
  return `evt_${toHex(digest).slice(0, 32)}`;
}

/** The event handlers receive for a session's result. */
export async function completedEvent(
  session: TrackedSession,
  result: StoredResult,
): Promise<VerificationCompletedEvent> {
  const attempt = session.state === 'delivering' ? session.attempts + 1 : 1;
  const event: VerificationCompletedEvent = {
    type: 'verification.completed',
    id: await eventId(session),
    source: result.source,
    receivedAt: new Date(result.receivedAt),
    data: result.payload,
    attempt,
  };
  if (session.token) event.sessionToken = session.token;
  if (result.secretLabel) event.secretLabel = result.secretLabel;
  return event;
}

/**
 * Runs the `verification.completed` handlers for a session this worker holds the lease
 * on, then records the outcome: completed after success, or kept with a retry time after
 * a failure. The result was stored before (or is stored with) the failure, so nothing is
 * lost; and only a lease holder delivers, so nothing is delivered twice.
 */
export async function deliverLeased(
  context: ReceiverContext,
  session: TrackedSession,
  owner: string,
  result: StoredResult,
  /** The event, when the caller already built it (it hashes the key for the id). */
  prepared?: VerificationCompletedEvent,
): Promise<Delivery> {
  const { store, handlers, log } = context;
  const event = prepared ?? (await completedEvent(session, result));
  const { attempt } = event;
  if (!(await stillLeased(context, session.key, owner, session.lease?.until))) {
    log.warn('A lease lapsed before delivery; another worker delivers this result.', {
      sessionToken: session.token,
    });
    return { outcome: 'lease-lost', event };
  }
  // Long handlers keep their lease alive, so no other worker starts the same delivery.
  const stopRenewal = keepLease(context, session.key, owner);
  let handlerError: unknown;
  let failed = false;
  try {
    if (handlers.count('verification.completed') === 0) {
      log.warn('No verification.completed handler is registered; the result is acknowledged.', {
        sessionToken: session.token,
      });
    }
    await handlers.run('verification.completed', event);
  } catch (error) {
    failed = true;
    handlerError = error;
  } finally {
    stopRenewal();
  }
  const now = context.now();
  try {
    if (failed) {
      handlers.reportError(handlerError, { stage: 'handler', event, ...tokenOf(session) });
      log.error('A verification.completed handler failed; the result is kept for a retry.', {
        sessionToken: session.token,
        attempt,
        error: handlerError instanceof Error ? handlerError.message : String(handlerError),
      });
      await store.settle(
        session.key,
        owner,
        {
          state: 'delivering',
          dueAt: now + delayAt(context.retryScheduleMs, attempt - 1),
          attempts: attempt,
          result,
        },
        now,
      );
      return { outcome: 'failed', event };
    }
    // A session's record is kept for the replay window so a late webhook of a result that
    // came by polling is recognised; a delivery matched to no session has nothing to poll,
    // and its digest alone already stops replays.
    const settled = await settleAfterSuccess(
      context,
      session.key,
      owner,
      session.token
        ? { state: 'completed', retainMs: context.replayWindowMs, result }
        : { state: 'completed', retainMs: 0 },
    );
    log.info('Verification result delivered.', {
      sessionToken: session.token,
      source: result.source,
      status: result.payload.status,
    });
    return { outcome: settled ? 'delivered' : 'lease-lost', event };
  } catch (error) {
    handlers.reportError(error, { stage: 'store', event, ...tokenOf(session) });
    return { outcome: 'failed', event };
  }
}

/**
 * Records a success. Handlers already ran, so giving up here would let the lease lapse and
 * the result be delivered again: a store outage (Redis restarting) is waited out, with
 * backoff, for as long as the lease keeps other workers away.
 */
async function settleAfterSuccess(
  context: ReceiverContext,
  key: string,
  owner: string,
  update: SettleUpdate,
): Promise<boolean> {
  const giveUpAt = context.now() + context.leaseMs;
  for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
    try {
      return await context.store.settle(key, owner, update, context.now());
    } catch (error) {
      if (context.now() + wait >= giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

export function tokenOf(session: TrackedSession): { sessionToken?: string } {
  return session.token ? { sessionToken: session.token } : {};
}
