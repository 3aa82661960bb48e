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
 * Seals a token with AES-256-GCM under each of `keys`:
 * `fvt1.<key id>.<base64url of IV and ciphertext>`, one `.<key id>.<sealed>` pair per key. The
 * record key is the associated data, so a sealed token copied into another record does not
 * open there.
 *
 * Sealed under every configured key, a token opens on every instance that shares one of them
 * with this one: during a rotation rolled out one instance at a time, instances of the
 * previous step (without the new key) and of the next (without the old one) both open it.
 */
export async function sealToken(
  keys: readonly TokenKey[],
  token: string,
  recordKey: string,
): Promise<string> {
  const pairs = await Promise.all(keys.map((key) => sealOnce(key, token, recordKey)));
  return `${PREFIX}${pairs.join('.')}`;
}

async function sealOnce(key: TokenKey, token: string, recordKey: string): Promise<string> {
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealing = sealAesGcm(key.sealKey, iv, encoder.encode(recordKey), encoder.encode(token));
  const sealed = sealing instanceof Uint8Array ? sealing : await sealing;
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return `${key.id}.${toBase64Url(out)}`;
}

/** The ids of the keys a sealed token was sealed under: what an instance must list to open it. */
export function sealedKeyIds(sealed: string): string[] {
  const parts = sealed.slice(PREFIX.length).split('.');
  return parts.filter((_, index) => index % 2 === 0);
}

/**
 * Opens a sealed token with the first configured key among those it was sealed under;
 * `undefined` when none of them is configured (they were removed from the configuration) or
 * the sealed text was altered.
 */
export async function openToken(
  keys: readonly TokenKey[],
  sealed: string,
  recordKey: string,
): Promise<string | undefined> {
  const parts = sealed.slice(PREFIX.length).split('.');
  let key: TokenKey | undefined;
  let body: string | undefined;
  for (let index = 0; index + 1 < parts.length && !key; index += 2) {
    key = keys.find((candidate) => candidate.id === parts[index]);
    body = parts[index + 1];
  }
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
