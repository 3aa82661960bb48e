import type { SessionSnapshot } from '../client/index.js';
import { ApiError, RateLimitError } from '../errors.js';
import type { VerificationPayload } from '../payload/types.js';
import { type ReceiverContext, requireClient } from '../receiver/context.js';
import { type DeliveryOutcome, deliverLeased, tokenOf } from '../receiver/deliver.js';
import { keepLease } from '../receiver/keep-lease.js';
import { delayAt } from '../receiver/options.js';
import type { TrackedSession } from '../store/store.js';
import { expireLeased } from './expire-session.js';

/** What one look at a leased session came to, and what the service said of it. */
export interface PollOutcome {
  outcome: DeliveryOutcome | 'pending' | 'expired' | 'retry-later';
  status: SessionSnapshot['status'] | 'unknown';
  result?: VerificationPayload;
}

/**
 * Works on one session this worker leased: delivers a stored result, or asks the service
 * (`GET /v1/sessions/:token`) and delivers a completed result down the same path as a
 * webhook, or reschedules, or gives the session up when its lifetime is over.
 */
export async function pollLeased(
  context: ReceiverContext,
  session: TrackedSession,
  owner: string,
): Promise<PollOutcome> {
  const { store, log } = context;
  if (session.result) {
    const { outcome } = await deliverLeased(context, session, owner, session.result);
    return { outcome, status: session.result.payload.status, result: session.result.payload };
  }
  if (!session.token) {
    // A record without a token and without a result cannot be worked on; close it.
    await store.settle(session.key, owner, { state: 'expired', retainMs: 0 }, context.now());
    return { outcome: 'expired', status: 'unknown' };
  }
  const client = requireClient(context, 'Polling a session');
  let snapshot: SessionSnapshot;
  // A poll may wait out 429s and retries for longer than a lease lasts.
  const stopRenewal = keepLease(context, session.key, owner);
  try {
    snapshot = await client.getSession(session.token);
  } catch (error) {
    stopRenewal();
    const now = context.now();
    if (error instanceof ApiError && error.status === 404) {
      await expireLeased(context, session, owner);
      return { outcome: 'expired', status: 'unknown' };
    }
    const wait =
      error instanceof RateLimitError
        ? Math.max(error.retryAfterMs, 1)
        : delayAt(context.pollScheduleMs, session.attempts);
    context.handlers.reportError(error, { stage: 'poll', ...tokenOf(session) });
    log.warn('Polling a session failed; it will be polled again.', {
      sessionToken: session.token,
      retryInMs: wait,
      error: error instanceof Error ? error.message : String(error),
    });
    await store.settle(
      session.key,
      owner,
      { state: 'pending', dueAt: now + wait, attempts: session.attempts },
      now,
    );
    return { outcome: 'retry-later', status: 'unknown' };
  }
  stopRenewal();
  const now = context.now();
  if (snapshot.result) {
    const result = { payload: snapshot.result, source: 'poll' as const, receivedAt: now };
    const { outcome } = await deliverLeased(context, session, owner, result);
    return { outcome, status: snapshot.status, result: snapshot.result };
  }
  if (snapshot.status === 'expired' || now >= session.expiresAt) {
    await expireLeased(context, session, owner);
    return { outcome: 'expired', status: 'expired' };
  }
  const attempts = session.attempts + 1;
  const dueAt = Math.min(now + delayAt(context.pollScheduleMs, attempts), session.expiresAt);
  await store.settle(session.key, owner, { state: 'pending', dueAt, attempts }, now);
  return { outcome: 'pending', status: 'pending' };
}
