import type { AccountDirectory } from '../accounts/account-directory.js';
import { accountScope } from '../accounts/account-scope.js';
import { checkExternalUserId } from '../client/external-user-id.js';
import type { Log } from '../logging/logger.js';
import type { TokenProtectingStore } from '../token-protection/token-protecting-store.js';
import type { RefusedBodies } from './refused-bodies.js';

/** What `receiver.forgetUser` removed. */
export interface ForgottenUser {
  /**
   * Records of the user removed from the store: sessions open or closed, results waiting
   * for delivery, dead letters. 0 when the store held none (a second call, or an unknown id).
   */
  removed: number;
}

/** Options of `receiver.forgetUser()`. */
export interface ForgetUserScope {
  /** On a Receiver of several accounts (required there): the account the user is of. */
  account?: string;
}

/** What erasure works with: the store, the clock leases follow, and what this process holds. */
export interface ErasureContext {
  store: Pick<TokenProtectingStore, 'forgetUser'>;
  /** The accounts of a Receiver of several: a user is then always a user of one account. */
  accounts: AccountDirectory | undefined;
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
  options: ForgetUserScope = {},
): Promise<ForgottenUser> {
  checkExternalUserId(externalUserId, 'forgetUser()');
  const account = accountScope(context, options.account, 'forgetUser()');
  const waiting = context.clockReady();
  if (waiting) await waiting;
  const removed = await context.store.forgetUser({ externalUserId, account, now: context.now() });
  context.refusedBodies.forget(externalUserId, account);
  context.log.notice("A user's records were erased.", { removed });
  return { removed };
}
