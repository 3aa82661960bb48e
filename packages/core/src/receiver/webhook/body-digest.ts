import { sha256Hex128 } from '#hmac';

/**
 * The replay key of a delivery: 128 bits of the SHA-256 of its exact body, in hex. Not the
 * signature: a body signed again with a rotated secret is the same delivery. Synchronous
 * where the runtime hashes synchronously (Node), so the hot path awaits nothing for it.
 */
export function bodyDigest(body: Uint8Array): string | Promise<string> {
  return sha256Hex128(body);
}
