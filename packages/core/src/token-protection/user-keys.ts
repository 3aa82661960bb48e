import { hmacSha256 } from '#hmac';
import { toBase64Url } from './base64-url.js';
import type { TokenKey } from './token-keys.js';

const encoder = new TextEncoder();

/** How every stored user id derived from a user's id begins. */
export const USER_KEY_PREFIX = 'u1:';

/**
 * What a store holds in place of a user's id: `u1:` and 256 bits of HMAC-SHA256 under one
 * key, base64url. The same id gives the same text under one key, so a store still indexes on
 * it (`findByUser`, `maxOpenPerUser`); without the key, a dump cannot be matched to a user by
 * hashing candidate ids, as a plain hash could.
 */
export async function userKeyOf(key: TokenKey, externalUserId: string): Promise<string> {
  const digest = hmacSha256(key.userSecret, encoder.encode(externalUserId));
  const mac = digest instanceof Uint8Array ? digest : await digest;
  return `${USER_KEY_PREFIX}${toBase64Url(mac)}`;
}

/** Whether a stored user id is a keyed hash; one written before ids were hashed is in clear. */
export function isHashedUser(stored: string): boolean {
  return stored.startsWith(USER_KEY_PREFIX);
}
