import type { TrackedSession } from '../store/store.js';
import type { DeliveryContext } from './delivery-context.js';
import type { VerificationExpiredEvent } from './events.js';
import { tokenIdOf } from './token-id.js';

/** What giving a session up works with: the store on its clock, its retention, the handlers. */
export type ExpireContext = Pick<
  DeliveryContext,
  'store' | 'now' | 'replayWindowMs' | 'log' | 'handlers'
>;

export function expiredEvent(
  session: TrackedSession,
  token: string,
  reason: VerificationExpiredEvent['reason'],
  now: number,
): VerificationExpiredEvent {
  return {
    type: 'verification.expired',
    reason,
    ...(session.account === undefined ? {} : { account: session.account }),
    sessionToken: token,
    externalUserId: session.externalUserId,
    createdAt: new Date(session.createdAt),
    expiredAt: new Date(now),
  };
}

/** Runs `verification.expired` handlers; one that throws is reported, not retried. */
export async function runExpiredHandlers(
  context: Pick<ExpireContext, 'log' | 'handlers'>,
  event: VerificationExpiredEvent,
): Promise<void> {
  context.log.info('Session given up without a result.', {
    sessionToken: event.sessionToken,
    reason: event.reason,
  });
  try {
    await context.handlers.run('verification.expired', event);
  } catch (error) {
    context.handlers.reportError(error, {
      stage: 'expired-handler',
      ...tokenIdOf(event.sessionToken),
      event,
    });
  }
}

/**
 * Gives a session up. Settling first makes the event fire once even when several workers
 * race; a throwing `verification.expired` handler is reported, not retried.
 */
export async function expireLeased(
  context: ExpireContext,
  session: TrackedSession,
  owner: string,
  reason: VerificationExpiredEvent['reason'],
): Promise<void> {
  const now = context.now();
  const settled = await context.store.settle({
    key: session.key,
    owner,
    update: { state: 'expired', retainMs: context.replayWindowMs },
    now,
  });
  if (!settled || !session.token) return;
  await runExpiredHandlers(context, expiredEvent(session, session.token, reason, now));
}
