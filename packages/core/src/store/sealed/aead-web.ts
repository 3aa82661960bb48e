import type * as Aead from './aead.js';
import { toBase64Url } from './base64-url.js';

const encoder = new TextEncoder();
const bytesOf = (text: Uint8Array | string) =>
  typeof text === 'string' ? encoder.encode(text) : text;

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

/** AES-256-GCM with Web Crypto (Workers, Bun, Deno, browsers): IV, ciphertext and tag. */
export async function sealAesGcm(
  key: Uint8Array,
  iv: Uint8Array,
  aad: Uint8Array | string,
  plain: Uint8Array | string,
): Promise<string> {
  const sealed = await globalThis.crypto.subtle.encrypt(
    { name: 'AES-GCM', iv: iv as BufferSource, additionalData: bytesOf(aad) as BufferSource },
    await aesKey(key),
    bytesOf(plain) as BufferSource,
  );
  const out = new Uint8Array(iv.byteLength + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), iv.byteLength);
  return toBase64Url(out);
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
