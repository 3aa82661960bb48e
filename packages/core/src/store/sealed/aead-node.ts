import { createCipheriv, createDecipheriv } from 'node:crypto';
import type * as Aead from './aead.js';

const TAG_BYTES = 16;

/** AES-256-GCM with node:crypto, synchronous: Web Crypto's promise costs more than the cipher. */
export function sealAesGcm(
  key: Uint8Array,
  iv: Uint8Array,
  aad: Uint8Array | string,
  plain: Uint8Array | string,
): string {
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(
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
  const decipher = createDecipheriv('aes-256-gcm', key, iv).setAAD(aad);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)),
    decipher.final(),
  ]);
}

({ sealAesGcm, openAesGcm }) satisfies typeof Aead;
