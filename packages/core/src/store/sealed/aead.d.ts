// The one contract of `#aead`, as `#hmac` has its own: package.json `imports` picks an
// implementation per runtime (aead-node.ts with node:crypto, synchronous; aead-web.ts with
// Web Crypto) and gives TypeScript this file.

/**
 * AES-256-GCM of `plain` with `key` (32 bytes), `iv` (12 bytes) and `aad`, as one text: the
 * base64url of the IV, the ciphertext and the tag. Texts are taken as UTF-8, where node:crypto
 * encrypts them with no copy of their own: a result is kilobytes, sealed on every webhook.
 */
export declare function sealAesGcm(
  key: Uint8Array,
  iv: Uint8Array,
  aad: Uint8Array | string,
  plain: Uint8Array | string,
): string | Promise<string>;

/** Opens what `sealAesGcm` sealed; rejects or throws when the key, IV, AAD or bytes differ. */
export declare function openAesGcm(
  key: Uint8Array,
  iv: Uint8Array,
  aad: Uint8Array,
  sealed: Uint8Array,
): Uint8Array | Promise<Uint8Array>;
