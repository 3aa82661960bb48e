import { hmacSha256 } from '#hmac';
import { toBase64Url } from './base64-url.js';
import { andThen, type MaybeAsync } from './maybe-async.js';
import type { TokenKey } from './token-keys.js';

const encoder = new TextEncoder();

/**
 * What a store holds for one start (one need of one user, `Store.claimStart`): `s1:` and a
 * keyed hash of the user's stored id and the purpose, so neither a purpose the app names (an
 * idempotency key may say anything) nor the user can be read from it. The same on every
 * process whose first key is the same.
 */
export function startKeyOf(key: TokenKey, storedUser: string, purpose: string): MaybeAsync<string> {
  const named = `start\u0000${storedUser}\u0000${purpose}`;
  return andThen(
    hmacSha256(key.userSecret, encoder.encode(named)),
    (mac) => `s1:${toBase64Url(mac)}`,
  );
}

/** Whose starts a count counts: one user's (as the store holds the id), or one account's. */
export type StartCountOf = { user: string } | { account: string | undefined };

/**
 * What a store holds for a count of starts in one period: `n1:` and the user's stored id (a
 * keyed hash already) or the account's id (an account of the integrator, nobody's data).
 */
export function startCountKeyOf(of: StartCountOf, period: string): string {
  return 'user' in of ? `n1:u:${of.user}:${period}` : `n1:a:${of.account ?? ''}:${period}`;
}
