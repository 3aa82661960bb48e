import type { TrackedSession } from '../store.js';

/**
 * A record as the Receiver knows it, keyed by its token, with the key the store holds it
 * under: what stays of it once the record closed and dropped its token (a dead letter).
 */
export type RevealedSession = TrackedSession & { storedKey?: string };

/**
 * The key the store holds `session` under: the session's own key, unless `TokenProtectingStore`
 * revealed its token (then the keyed hash of the token the record was found under). The same before
 * and after the record closes, in every process sharing the store and its token keys.
 */
export function storedKeyOf(session: TrackedSession): string {
  return (session as RevealedSession).storedKey ?? session.key;
}
