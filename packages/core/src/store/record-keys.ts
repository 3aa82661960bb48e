/**
 * Key prefix of a delivery matched to no session: `webhook:<signature digest>`. The digest
 * is no secret, so such a key is stored, logged and turned into an event id as it is; every
 * other key is a session token, which the Receiver's token protection hashes. The helpers
 * below are the only code that knows the format.
 */
const UNMATCHED_PREFIX = 'webhook:';

/** The key of a delivery matched to no session, from its body's digest. */
export function unmatchedKey(digest: string): string {
  return `${UNMATCHED_PREFIX}${digest}`;
}

/** Whether a key is that of a delivery matched to no session (never a session token's). */
export function isUnmatchedKey(key: string): boolean {
  return key.startsWith(UNMATCHED_PREFIX);
}

/** The body digest an unmatched delivery's key was made from (see `unmatchedKey`). */
export function digestOfUnmatched(key: string): string {
  return key.slice(UNMATCHED_PREFIX.length);
}
