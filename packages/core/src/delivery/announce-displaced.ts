import type { TrackedSession } from '../store/store.js';
import { completedEvent, emitUndeliverable, type UndeliverableContext } from './deliver.js';
import type { DeliveryContext } from './delivery-context.js';
import { expiredEvent, runExpiredHandlers } from './expire-session.js';
import { isSuperseded, type SupersededContext } from './superseded.js';

/** What announcing displaced records works with: their handlers, and what counts them. */
export type DisplacedContext = UndeliverableContext &
  SupersededContext &
  Pick<DeliveryContext, 'log' | 'now' | 'maxOpenPerUser'>;

/**
 * Emits what became of records the store closed to keep a user within `maxOpenPerUser`:
 * a session is expired (`reason: 'displaced'`), an undelivered result is undeliverable.
 */
export async function announceDisplaced(
  context: DisplacedContext,
  displaced: readonly TrackedSession[],
): Promise<void> {
  for (const record of displaced) {
    // Its token is sealed under keys this instance lacks: an event would name no session.
    if (record.unreadableToken) continue;
    context.log.warn('A user has too many open sessions; the oldest was given up.', {
      sessionToken: record.token,
      maxOpenPerUser: context.maxOpenPerUser,
    });
    if (record.result) {
      // Newer records of the user displaced it: whether one is a session the store says.
      const superseded = await isSuperseded(context, record);
      const event = await completedEvent(record, record.result, context.now(), superseded);
      await emitUndeliverable(context, {
        type: 'verification.undeliverable',
        reason: 'displaced',
        event,
      });
    } else if (record.token) {
      await runExpiredHandlers(
        context,
        expiredEvent(record, record.token, 'displaced', context.now()),
      );
    }
  }
}
