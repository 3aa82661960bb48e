import { hmacSha256 } from '#hmac';
import { ConfigurationError } from '../../base/errors.js';
import { toBase64Url } from './base64-url.js';
import { andThen, type MaybeAsync } from './maybe-async.js';

/**
 * One key protecting session tokens at rest, derived from one secret: an HMAC key that turns
 * a token into its record key (256 derived bits, as base64url text: `#hmac` takes its key as
 * text, and is synchronous on Node, where every store operation pays it), an AES-256-GCM key
 * that wraps the data keys texts are sealed with (raw bytes: `#aead` is synchronous
 * node:crypto on Node), and a short public id written beside each, so the key that wrapped it
 * is found without trying all.
 */
export interface TokenKey {
  id: string;
  recordSecret: string;
  /** Turns a user's id into the keyed hash stores index on (see `userKeyOf`); text, as above. */
  userSecret: string;
  sealKey: Uint8Array;
}

/** Shortest dedicated token key accepted: 32 characters is 192 bits even in base64. */
export const MIN_TOKEN_KEY_LENGTH = 32;

const encoder = new TextEncoder();
// HKDF needs no secret salt when its input is already a high-entropy secret; a fixed one
// keeps these keys apart from anything else ever derived from the same secret.
const SALT = encoder.encode('faceverify.token-keys');

function info(purpose: string): Uint8Array {
  return encoder.encode(`faceverify token ${purpose} v1`);
}

/** Derives the keys of one secret with HKDF-SHA256 (Web Crypto: Node, Workers, Bun, Deno). */
export async function deriveTokenKey(secret: string): Promise<TokenKey> {
  const { subtle } = globalThis.crypto;
  const material = await subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, [
    'deriveKey',
    'deriveBits',
  ]);
  const hkdf = (purpose: string) => ({
    name: 'HKDF',
    hash: 'SHA-256',
    salt: SALT,
    info: info(purpose),
  });
  const [recordBits, userBits, sealBits, id] = await Promise.all([
    subtle.deriveBits(hkdf('record key'), material, 256),
    subtle.deriveBits(hkdf('user key'), material, 256),
    subtle.deriveBits(hkdf('seal key'), material, 256),
    subtle.deriveBits(hkdf('key id'), material, 48),
  ]);
  return {
    id: toBase64Url(new Uint8Array(id)),
    recordSecret: toBase64Url(new Uint8Array(recordBits)),
    userSecret: toBase64Url(new Uint8Array(userBits)),
    sealKey: new Uint8Array(sealBits),
  };
}

/** How every record key derived from a token begins. */
export const RECORD_KEY_PREFIX = 't1:';

/** The record key of a token under one key: `t1:` and 256 bits of HMAC-SHA256, base64url. */
export function recordKeyOf(key: TokenKey, token: string): MaybeAsync<string> {
  return andThen(
    hmacSha256(key.recordSecret, encoder.encode(token)),
    (mac) => `${RECORD_KEY_PREFIX}${toBase64Url(mac)}`,
  );
}

/**
 * The secrets token keys are derived from, in order (the first keys and hashes new records),
 * and how many of the first seal: every one when they are the signing secrets alone, the
 * dedicated token keys alone once there are any (the signing secrets then only open, and
 * find, what they sealed and keyed before).
 */
export interface TokenSecrets {
  secrets: readonly string[];
  sealing: number;
}

/**
 * The secrets token keys are derived from, in order (the first keys and hashes new sessions):
 * the dedicated `tokenKeys` when given, then the webhook signing secrets, which still open and
 * find what they protected before dedicated keys were configured, and seal nothing new: a
 * store dump and the webhook secret alone open nothing sealed once dedicated keys are set. Dedicated keys shorter than
 * {@link MIN_TOKEN_KEY_LENGTH} are refused, with how to make one; a signing secret listed
 * among them is taken as it is (it is a key already: the first step of setting `tokenKeys`
 * lists it first, so that sessions stay keyed under it until every instance has the new key).
 */
export function tokenKeySecrets(
  dedicated: ReadonlyArray<string> | undefined,
  signingSecrets: ReadonlyArray<string>,
  source: string,
): TokenSecrets {
  const keys = (dedicated ?? []).filter((key) => key !== '');
  keys.forEach((key, index) => {
    if (typeof key === 'string' && signingSecrets.includes(key)) return;
    if (typeof key !== 'string' || key.trim().length < MIN_TOKEN_KEY_LENGTH) {
      throw new ConfigurationError(
        `Token key #${index} (${source}) is shorter than ${MIN_TOKEN_KEY_LENGTH} characters. Generate one with \`openssl rand -base64 32\` and add it as "Rotating a signing secret or a token key" in docs/polling-and-stores.md says (last, then first), keeping older keys listed until sessions sealed with them have closed.`,
      );
    }
  });
  const secrets = [...keys, ...signingSecrets];
  return { secrets, sealing: keys.length > 0 ? keys.length : secrets.length };
}
