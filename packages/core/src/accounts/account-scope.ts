import type { AccountDirectory } from './account-directory.js';
import { checkAccountId } from './account-id.js';

/**
 * The account a call of the integrator names (`startVerification`, `track`, `forgetUser`):
 * required, and well-formed, on a Receiver of several accounts, where a user id means nothing
 * without its account; refused on a Receiver of one, where it would be silently ignored.
 */
export function accountScope(
  context: { accounts: AccountDirectory | undefined },
  account: string | undefined,
  where: string,
): string | undefined {
  if (!context.accounts) {
    if (account === undefined) return undefined;
    throw new TypeError(
      `${where}: \`account\` is for a Receiver of several accounts (the accounts option of createReceiver); this one serves one. Remove it, or configure accounts.`,
    );
  }
  if (account === undefined) {
    throw new TypeError(
      `${where} needs \`account\` on a Receiver of several accounts: the same user id in two accounts is two users. Pass the id of the account the session is of.`,
    );
  }
  checkAccountId(account, where);
  return account;
}
