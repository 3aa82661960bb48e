import { hmacSha256 } from '#hmac';
import { toBase64Url } from './base64-url.js';
import { andThen, type MaybeAsync } from './maybe-async.js';
import type { TokenKey } from './token-keys.js';

const encoder = new TextEncoder();

/** How every stored user id derived from a user's id begins. */
export const USER_KEY_PREFIX = 'u1:';

/** Between the keyed hash and the account it is scoped to; base64url never holds one. */
const ACCOUNT_SEPARATOR = '.';

/**
 * What a store holds in place of a user's id: `u1:` and 256 bits of HMAC-SHA256 under one
 * key, base64url. The same id gives the same text under one key, so a store still indexes on
 * it (`findByUser`, `maxOpenPerUser`); without the key, a dump cannot be matched to a user by
 * hashing candidate ids, as a plain hash could.
 *
 * A user of an account (a Receiver of several accounts) is hashed with the account's id, and
 * the id follows in clear (`u1:<hash>.<account>`): the same user id in two accounts is two
 * users that never match, and every record, open or closed, says which account it is of (an
 * account id names an account of the integrator, nobody's data).
 */
export function userKeyOf(
  key: TokenKey,
  externalUserId: string,
  account?: string,
): MaybeAsync<string> {
  const scoped = account === undefined ? externalUserId : `${account}\u0000${externalUserId}`;
  return andThen(hmacSha256(key.userSecret, encoder.encode(scoped)), (mac) => {
    const hashed = `${USER_KEY_PREFIX}${toBase64Url(mac)}`;
    return account === undefined ? hashed : `${hashed}${ACCOUNT_SEPARATOR}${account}`;
  });
}

/** The account a stored user id is scoped to, if any (see `userKeyOf`). */
export function accountOfStoredUser(stored: string): string | undefined {
  if (!isHashedUser(stored)) return undefined;
  const at = stored.indexOf(ACCOUNT_SEPARATOR, USER_KEY_PREFIX.length);
  return at < 0 ? undefined : stored.slice(at + 1);
}

/** Whether a stored user id is a keyed hash; one written before ids were hashed is in clear. */
export function isHashedUser(stored: string): boolean {
  return stored.startsWith(USER_KEY_PREFIX);
}
