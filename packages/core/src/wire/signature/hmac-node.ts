import * as nodeCrypto from 'node:crypto';
import {
  createHash,
  createHmac,
  createSecretKey,
  type KeyObject,
  timingSafeEqual,
} from 'node:crypto';
import type * as Hmac from './hmac.js';

// Read from the namespace, not imported by name: a runtime without it must still load this.
const oneShotHash = (nodeCrypto as { hash?: typeof nodeCrypto.hash }).hash;
const keyCache = new Map<string, KeyObject>();
// Every secret of every account (a Receiver of several keeps up to 1,000 by default) and the
// token keys: past this the cache starts over, so a few thousand accounts in turn do not each
// import their key again at every webhook.
const KEY_CACHE_LIMIT = 4096;
const HEX_64 = /^[0-9a-fA-F]{64}$/;

/** HMAC-SHA256 with node:crypto. Synchronous: the caller skips an await on the hot path. */
export function hmacSha256(secret: string, data: Uint8Array): Uint8Array {
  let key = keyCache.get(secret);
  if (!key) {
    // A KeyObject skips re-encoding the secret on every HMAC; secrets are few and long-lived.
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keyCache.set(secret, key);
  }
  return createHmac('sha256', key).update(data).digest();
}

/**
 * Lowercase hex of the first 16 bytes of the SHA-256 of `data`, with node:crypto: the replay
 * key of a delivery, whatever secret signed it. Synchronous, so the hot path awaits nothing.
 */
export function sha256Hex128(data: Uint8Array): string {
  // The one-shot `hash()` (Node 20.12+) skips the Hash object: about a third cheaper for a
  // webhook. Runtimes whose node:crypto lacks it take the Hash object.
  if (oneShotHash) return oneShotHash('sha256', data, 'hex').slice(0, 32);
  return createHash('sha256').update(data).digest().toString('hex', 0, 16);
}

/**
 * Decodes a 64-digit hex digest into a Buffer, or `undefined` for anything else. A Buffer
 * (off the JS heap) is what `timingSafeEqual` compares without copying.
 */
export function decodeDigestHex(text: string): Uint8Array | undefined {
  return HEX_64.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/** Constant-time equality of two byte arrays of the same length. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

// Held to the `#hmac` contract that callers are type-checked against.
({ hmacSha256, sha256Hex128, decodeDigestHex, equalBytes }) satisfies typeof Hmac;
