import { openAesGcm, sealAesGcm } from '#aead';
import { fromBase64Url, toBase64Url } from './base64-url.js';
import type { TokenKey } from './token-keys.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const PREFIX = 'fvt1.';
const IV_BYTES = 12;

/** Whether a stored token is sealed; a record written before sealing holds it in clear. */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/**
 * Seals a token with AES-256-GCM: `fvt1.<key id>.<base64url of IV and ciphertext>`. The
 * record key is the associated data, so a sealed token copied into another record does not
 * open there.
 */
export async function sealToken(key: TokenKey, token: string, recordKey: string): Promise<string> {
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealing = sealAesGcm(key.sealKey, iv, encoder.encode(recordKey), encoder.encode(token));
  const sealed = sealing instanceof Uint8Array ? sealing : await sealing;
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return `${PREFIX}${key.id}.${toBase64Url(out)}`;
}

/**
 * Opens a sealed token with the key its id names; `undefined` when no configured key has
 * that id (it was removed from the configuration) or the sealed text was altered.
 */
export async function openToken(
  keys: readonly TokenKey[],
  sealed: string,
  recordKey: string,
): Promise<string | undefined> {
  const [id, body] = sealed.slice(PREFIX.length).split('.');
  const key = keys.find((candidate) => candidate.id === id);
  if (!key || body === undefined) return undefined;
  try {
    const bytes = fromBase64Url(body);
    const opening = openAesGcm(
      key.sealKey,
      bytes.subarray(0, IV_BYTES),
      encoder.encode(recordKey),
      bytes.subarray(IV_BYTES),
    );
    return decoder.decode(opening instanceof Uint8Array ? opening : await opening);
  } catch {
    return undefined;
  }
}
