import { sha256 } from '#hmac';
import { toHex } from '../signature/hex.js';

/**
 * The replay key of a delivery: 128 bits of the SHA-256 of its exact body. Not the
 * signature: a body signed again with a rotated secret is the same delivery.
 */
export async function bodyDigest(body: Uint8Array): Promise<string> {
  return toHex(await sha256(body)).slice(0, 32);
}
