// The one contract of `#hmac`. package.json `imports` picks an implementation per runtime
// (hmac-node.ts with node:crypto, hmac-web.ts with Web Crypto) and gives TypeScript this
// file, so callers are type-checked against what both provide, and each implementation is
// checked against it with `satisfies`.

/** HMAC-SHA256 of `data` keyed with the UTF-8 bytes of `secret`; sync on Node. */
export declare function hmacSha256(
  secret: string,
  data: Uint8Array,
): Uint8Array | Promise<Uint8Array>;

/** Decodes a 64-digit hex digest, or `undefined` for anything else. */
export declare function decodeDigestHex(text: string): Uint8Array | undefined;

/** Constant-time equality of two byte arrays. */
export declare function equalBytes(a: Uint8Array, b: Uint8Array): boolean;

/**
 * The first 128 bits of the SHA-256 of `data`, as 32 lowercase hex digits: the replay key of a
 * delivery, whatever secret signed it. Sync on Node.
 */
export declare function sha256Hex128(data: Uint8Array): string | Promise<string>;
