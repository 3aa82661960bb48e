import { isUnmatchedKey } from '../store/record-keys.js';

/**
 * What error contexts carry of a session: a short prefix of its token, never the whole
 * credential. A delivery matched to no session is keyed by its body digest, no secret.
 */
export function tokenIdOf(key: string | undefined): { tokenId?: string } {
  if (!key) return {};
  if (isUnmatchedKey(key)) return { tokenId: key };
  return { tokenId: `${key.slice(0, 6)}…` };
}
