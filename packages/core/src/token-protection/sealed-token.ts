import { openText, sealedTextKeyIds, sealText } from './sealed-text.js';
import type { TokenKey } from './token-keys.js';

const PREFIX = 'fvt1.';
/**
 * Between the token and its user's id in the sealed text. A token is a path segment and never
 * holds a NUL; a token sealed before user ids were sealed with it has none.
 */
const USER_SEPARATOR = '\u0000';

/** Whether a stored token is sealed; a record written before sealing holds it in clear. */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/**
 * Seals a token with AES-256-GCM under each of `keys` (see `sealText`):
 * `fvt1.<key id>.<base64url of IV and ciphertext>`, the record key as associated data. The
 * user's id rides along when given: the store holds only a keyed hash of it, and an open
 * session without a result has nowhere else to keep the id the Receiver names it by (a
 * `verification.expired` event). It is dropped with the token when the record closes.
 */
export function sealToken(
  keys: readonly TokenKey[],
  token: string,
  recordKey: string,
  externalUserId?: string,
): Promise<string> {
  const plain = externalUserId === undefined ? token : `${token}${USER_SEPARATOR}${externalUserId}`;
  return sealText(keys, PREFIX, plain, recordKey);
}

/** The ids of the keys a sealed token was sealed under: what an instance must list to open it. */
export function sealedKeyIds(sealed: string): string[] {
  return sealedTextKeyIds(PREFIX, sealed);
}

/** A sealed token opened: the token, and its user's id when it was sealed with it. */
export interface OpenedToken {
  token: string;
  externalUserId?: string;
}

/**
 * Opens a sealed token with the first configured key among those it was sealed under;
 * `undefined` when none of them is configured (they were removed from the configuration) or
 * the sealed text was altered.
 */
export async function openSealedToken(
  keys: readonly TokenKey[],
  sealed: string,
  recordKey: string,
): Promise<OpenedToken | undefined> {
  const plain = await openText(keys, PREFIX, sealed, recordKey);
  if (plain === undefined) return undefined;
  const at = plain.indexOf(USER_SEPARATOR);
  return at < 0
    ? { token: plain }
    : { token: plain.slice(0, at), externalUserId: plain.slice(at + 1) };
}

/** The token alone of a sealed token (see `openSealedToken`). */
export async function openToken(
  keys: readonly TokenKey[],
  sealed: string,
  recordKey: string,
): Promise<string | undefined> {
  return (await openSealedToken(keys, sealed, recordKey))?.token;
}
