import { fromHex, toHex } from './hex.js';
import type * as Hmac from './hmac.js';

const encoder = new TextEncoder();
const keyCache = new Map<string, Promise<CryptoKey>>();
// Every secret of every account (a Receiver of several keeps up to 1,000 by default) and the
// token keys: past this the cache starts over, so a few thousand accounts in turn do not each
// import their key again at every webhook.
const KEY_CACHE_LIMIT = 4096;

function importKey(secret: string): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (!key) {
    // Importing a key costs more than the HMAC of a small body; secrets are few and long-lived.
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
    key = crypto.subtle.importKey(
      'raw',
      encoder.encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    // A failed import must not stay cached and fail every later call.
    key.catch(() => keyCache.delete(secret));
    keyCache.set(secret, key);
  }
  return key;
}

/** HMAC-SHA256 with Web Crypto, for Cloudflare Workers, browsers and any runtime without node:crypto. */
export async function hmacSha256(secret: string, data: Uint8Array): Promise<Uint8Array> {
  const signature = await crypto.subtle.sign('HMAC', await importKey(secret), data as BufferSource);
  return new Uint8Array(signature);
}

/**
 * Lowercase hex of the first 16 bytes of the SHA-256 of `data`, with Web Crypto: the replay
 * key of a delivery, whatever secret signed it.
 */
export async function sha256Hex128(data: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', data as BufferSource);
  return toHex(new Uint8Array(digest, 0, 16));
}

/** Decodes a 64-digit hex digest, or `undefined` for anything else. */
export function decodeDigestHex(text: string): Uint8Array | undefined {
  return fromHex(text, 32);
}

/** Constant-time equality: the loop always visits every byte, whatever differs. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

// Held to the `#hmac` contract that callers are type-checked against.
({ hmacSha256, sha256Hex128, decodeDigestHex, equalBytes }) satisfies typeof Hmac;
