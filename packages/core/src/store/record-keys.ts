/**
 * Key prefix of a delivery matched to no session: `webhook:<signature digest>`. The digest
 * is no secret, so such a key is stored, logged and turned into an event id as it is; every
 * other key is a session token, which the Receiver's token protection hashes.
 */
export const UNMATCHED_PREFIX = 'webhook:';
