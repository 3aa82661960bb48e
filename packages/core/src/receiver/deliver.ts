import type { StoredResult, TrackedSession } from '../store/store.js';
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

/** The event handlers receive for a session's result. */
export function completedEvent(session: TrackedSession, result: StoredResult) {
  const attempt = session.state === 'delivering' ? session.attempts + 1 : 1;
  const event: VerificationCompletedEvent = {
    type: 'verification.completed',
    id: session.key,
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
): Promise<Delivery> {
  const { store, handlers, log } = context;
  const event = completedEvent(session, result);
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
    const settled = await store.settle(
      session.key,
      owner,
      { state: 'completed', retainMs: context.replayWindowMs, result },
      now,
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

export function tokenOf(session: TrackedSession): { sessionToken?: string } {
  return session.token ? { sessionToken: session.token } : {};
}
