import type * as Aead from './aead.js';

const keys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

function aesKey(key: Uint8Array): Promise<CryptoKey> {
  let imported = keys.get(key);
  if (!imported) {
    imported = globalThis.crypto.subtle.importKey('raw', key as BufferSource, 'AES-GCM', false, [
      'encrypt',
      'decrypt',
    ]);
    keys.set(key, imported);
  }
  return imported;
}

/** AES-256-GCM with Web Crypto (Workers, Bun, Deno, browsers): ciphertext and tag. */
export async function sealAesGcm(
  key: Uint8Array,
  iv: Uint8Array,
  aad: Uint8Array,
  plain: Uint8Array,
): Promise<Uint8Array> {
  const sealed = await globalThis.crypto.subtle.encrypt(
    { name: 'AES-GCM', iv: iv as BufferSource, additionalData: aad as BufferSource },
    await aesKey(key),
    plain as BufferSource,
  );
  return new Uint8Array(sealed);
}

/** Opens what `sealAesGcm` sealed; rejects when anything differs. */
export async function openAesGcm(
  key: Uint8Array,
  iv: Uint8Array,
  aad: Uint8Array,
  sealed: Uint8Array,
): Promise<Uint8Array> {
  const plain = await globalThis.crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: iv as BufferSource, additionalData: aad as BufferSource },
    await aesKey(key),
    sealed as BufferSource,
  );
  return new Uint8Array(plain);
}

({ sealAesGcm, openAesGcm }) satisfies typeof Aead;
