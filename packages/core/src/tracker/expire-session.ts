import type { ReceiverContext } from '../receiver/context.js';
import type { VerificationExpiredEvent } from '../receiver/events.js';
import type { TrackedSession } from '../store/store.js';

/**
 * Gives a session up. Settling first makes the event fire once even when several workers
 * race; a throwing `verification.expired` handler is reported, not retried.
 */
export async function expireLeased(
  context: ReceiverContext,
  session: TrackedSession,
  owner: string,
): Promise<void> {
  const now = context.now();
  const settled = await context.store.settle(
    session.key,
    owner,
    { state: 'expired', retainMs: context.replayWindowMs },
    now,
  );
  if (!settled || !session.token) return;
  const event: VerificationExpiredEvent = {
    type: 'verification.expired',
    sessionToken: session.token,
    externalUserId: session.externalUserId,
    createdAt: new Date(session.createdAt),
    expiredAt: new Date(now),
  };
  context.log.info('Session expired without a result.', { sessionToken: session.token });
  try {
    await context.handlers.run('verification.expired', event);
  } catch (error) {
    context.handlers.reportError(error, {
      stage: 'expired-handler',
      sessionToken: session.token,
      event,
    });
  }
}
