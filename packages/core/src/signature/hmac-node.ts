import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 with node:crypto: synchronous under the hood, the fastest path on Node, Bun and Deno. */
export async function hmacSha256(key: string, data: Uint8Array): Promise<Uint8Array> {
  return createHmac('sha256', key).update(data).digest();
}

/** Constant-time equality of two byte arrays of the same length. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
