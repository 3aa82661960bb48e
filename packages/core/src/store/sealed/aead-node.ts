import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto';
import type * as Aead from './aead.js';

const TAG_BYTES = 16;

// Each key's bytes imported once: a data key seals and opens every record sealed under it, and
// a cipher made from a KeyObject skips importing the raw key again (about a third of the cost
// of opening a token). Held only while the key's bytes are.
const keyObjects = new WeakMap<Uint8Array, KeyObject>();

function keyObjectOf(key: Uint8Array): KeyObject {
  let object = keyObjects.get(key);
  if (object === undefined) {
    object = createSecretKey(key);
    keyObjects.set(key, object);
  }
  return object;
}

/** AES-256-GCM with node:crypto, synchronous: Web Crypto's promise costs more than the cipher. */
export function sealAesGcm(
  key: Uint8Array,
  iv: Uint8Array,
  aad: Uint8Array | string,
  plain: Uint8Array | string,
): string {
  const cipher = createCipheriv('aes-256-gcm', keyObjectOf(key), iv).setAAD(
    typeof aad === 'string' ? Buffer.from(aad, 'utf8') : aad,
  );
  const sealed = typeof plain === 'string' ? cipher.update(plain, 'utf8') : cipher.update(plain);
  return Buffer.concat([iv, sealed, cipher.final(), cipher.getAuthTag()]).toString('base64url');
}

/** Opens what `sealAesGcm` sealed; throws when anything differs. */
export function openAesGcm(
  key: Uint8Array,
  iv: Uint8Array,
  aad: Uint8Array,
  sealed: Uint8Array,
): Uint8Array {
  const decipher = createDecipheriv('aes-256-gcm', keyObjectOf(key), iv).setAAD(aad);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  const plain = decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES));
  // GCM deciphers as it goes: `final` only checks the tag, and gives nothing more.
  const rest = decipher.final();
  return rest.length === 0 ? plain : Buffer.concat([plain, rest]);
}

({ sealAesGcm, openAesGcm }) satisfies typeof Aead;
