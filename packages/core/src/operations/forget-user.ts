import { checkExternalUserId } from '../client/external-user-id.js';
import type { Log } from '../logging/logger.js';
import type { Store } from '../store/store.js';
import type { RefusedBodies } from './refused-bodies.js';

/** What `receiver.forgetUser` removed. */
export interface ForgottenUser {
  /**
   * Records of the user removed from the store: sessions open or closed, results waiting
   * for delivery, dead letters. 0 when the store held none (a second call, or an unknown id).
   */
  removed: number;
}

/** What erasure works with: the store, the clock leases follow, and what this process holds. */
export interface ErasureContext {
  store: Store;
  now(): number;
  clockReady(): Promise<void> | undefined;
  refusedBodies: RefusedBodies;
  log: Log;
}

/**
 * Erasure of one user (an erasure request for special-category data): every record of the
 * user goes from the store in one atomic step (`Store.forgetUser`), and from what this process
 * remembers of refused bodies. The id is checked as `track()` checks it, so an id no store
 * holds is refused rather than matched to another; neither the id nor anything of the user's
 * is logged or put in an error.
 */
export async function forgetUser(
  context: ErasureContext,
  externalUserId: string,
): Promise<ForgottenUser> {
  checkExternalUserId(externalUserId, 'forgetUser()');
  const waiting = context.clockReady();
  if (waiting) await waiting;
  const removed = await context.store.forgetUser({ externalUserId, now: context.now() });
  context.refusedBodies.forget(externalUserId);
  context.log.info("A user's records were erased.", { removed });
  return { removed };
}
