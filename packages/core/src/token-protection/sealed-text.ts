import { openAesGcm, sealAesGcm } from '#aead';
import { fromBase64Url, toBase64Url } from './base64-url.js';
import type { TokenKey } from './token-keys.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const IV_BYTES = 12;
// IVs are drawn from a buffer of random bytes filled 4 KiB at a time: one getRandomValues call
// costs about as much for 4 KiB as for 12 bytes, and a webhook seals several texts. A new
// buffer replaces a used one, so no IV is ever drawn twice.
const IV_POOL_BYTES = 4096;
let ivPool = new Uint8Array(0);
let ivOffset = 0;

function nextIv(): Uint8Array {
  if (ivOffset + IV_BYTES > ivPool.byteLength) {
    ivPool = globalThis.crypto.getRandomValues(new Uint8Array(IV_POOL_BYTES));
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

/**
 * Seals `plain` with AES-256-GCM under each of `keys`: `<prefix><key id>.<base64url of IV and
 * ciphertext>`, one `.<key id>.<sealed>` pair per key, `aad` as associated data. What is sealed
 * (a token, a result) is named by the prefix; the caller puts what binds it to its place (the
 * record key) in `aad`, so a sealed text copied elsewhere does not open there.
 *
 * Sealed under every configured key, a text opens on every instance that shares one of them
 * with this one: during a rotation rolled out one instance at a time, instances of the
 * previous step (without the new key) and of the next (without the old one) both open it.
 */
export async function sealText(
  keys: readonly TokenKey[],
  prefix: string,
  plain: string,
  aad: string,
): Promise<string> {
  const bytes = encoder.encode(plain);
  const data = encoder.encode(aad);
  const pairs = await Promise.all(keys.map((key) => sealOnce(key, bytes, data)));
  return `${prefix}${pairs.join('.')}`;
}

async function sealOnce(key: TokenKey, plain: Uint8Array, aad: Uint8Array): Promise<string> {
  const iv = nextIv();
  const sealing = sealAesGcm(key.sealKey, iv, aad, plain);
  const sealed = sealing instanceof Uint8Array ? sealing : await sealing;
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return `${key.id}.${toBase64Url(out)}`;
}

/** The ids of the keys a sealed text was sealed under: what an instance must list to open it. */
export function sealedTextKeyIds(prefix: string, sealed: string): string[] {
  const parts = sealed.slice(prefix.length).split('.');
  return parts.filter((_, index) => index % 2 === 0);
}

/**
 * Opens a sealed text with the first configured key among those it was sealed under;
 * `undefined` when none of them is configured (they were removed from the configuration) or
 * the sealed text, or its associated data, was altered.
 */
export async function openText(
  keys: readonly TokenKey[],
  prefix: string,
  sealed: string,
  aad: string,
): Promise<string | undefined> {
  const parts = sealed.slice(prefix.length).split('.');
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
      encoder.encode(aad),
      bytes.subarray(IV_BYTES),
    );
    return decoder.decode(opening instanceof Uint8Array ? opening : await opening);
  } catch {
    return undefined;
  }
}
