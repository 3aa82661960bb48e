import { decodeDigestHex, equalBytes, hmacSha256 } from '#hmac';
import { toHex } from './hex.js';
import { type LabeledSecret, normalizeSecrets, type WebhookSecrets } from './secrets.js';

const encoder = new TextEncoder();

/** The bytes a body is signed over: strings are UTF-8 encoded, byte arrays are used as they are. */
function bodyBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? encoder.encode(body) : body;
}

/**
 * Signs a body the way the service does: lowercase hex HMAC-SHA256 of the exact bytes.
 * The secret must be non-empty (Web Crypto refuses empty HMAC keys, so the same rule holds
 * on every runtime).
 *
 * @example
 * const signature = await sign(rawBody, process.env.FACEVERIFY_WEBHOOK_SECRET!);
 */
export async function sign(body: string | Uint8Array, secret: string): Promise<string> {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError('sign() needs a non-empty signing secret.');
  }
  return toHex(await hmacSha256(secret, bodyBytes(body)));
}

/** Which secret a signature was made with: its position (0 is the newest) and its label. */
export interface SecretMatch {
  index: number;
  label: string;
}

/**
 * Finds the secret a signature was made with. Every secret is tried, in constant time per
 * comparison; `null` when none matches or the signature is malformed (never an exception).
 * Use it during a rotation to learn when the old secret has stopped being used.
 */
export async function matchSignature(
  body: string | Uint8Array,
  signature: string | null | undefined,
  secrets: WebhookSecrets | readonly LabeledSecret[],
): Promise<SecretMatch | null> {
  return findSecret(bodyBytes(body), signature, normalizeSecrets(secrets));
}

/**
 * `matchSignature` over the body's bytes and secrets already normalized (the Receiver's),
 * answered synchronously where the runtime's HMAC is synchronous (Node): the hot path then
 * awaits nothing for it.
 */
export function findSecret(
  bytes: Uint8Array,
  signature: string | null | undefined,
  list: readonly LabeledSecret[],
): SecretMatch | null | Promise<SecretMatch | null> {
  if (typeof signature !== 'string') return null;
  const expected = decodeDigestHex(signature.trim());
  if (!expected) return null;
  let match: SecretMatch | null = null;
  // No early exit: the time taken does not reveal which secret matched.
  for (let index = 0; index < list.length; index++) {
    const entry = list[index]!;
    const digest = hmacSha256(entry.secret, bytes);
    // Web Crypto answers with a promise: the rest of the list is tried asynchronously.
    if (!(digest instanceof Uint8Array)) {
      return matchFrom(digest, index, bytes, expected, list, match);
    }
    if (equalBytes(digest, expected) && match === null) match = { index, label: entry.label };
  }
  return match;
}

async function matchFrom(
  pending: Promise<Uint8Array>,
  from: number,
  bytes: Uint8Array,
  expected: Uint8Array,
  list: readonly LabeledSecret[],
  found: SecretMatch | null,
): Promise<SecretMatch | null> {
  let match = found;
  for (let index = from; index < list.length; index++) {
    const entry = list[index]!;
    const actual = index === from ? await pending : await hmacSha256(entry.secret, bytes);
    if (equalBytes(actual, expected) && match === null) match = { index, label: entry.label };
  }
  return match;
}

/**
 * Checks an `X-Webhook-Signature` value against the raw body with one or several secrets.
 * Returns `false`, never throws, for a missing, empty, short, long, non-hex or prefixed
 * signature, and for an empty secret.
 *
 * @example
 * if (!(await verify(rawBody, req.headers['x-webhook-signature'], secrets))) reply(401);
 */
export async function verify(
  body: string | Uint8Array,
  signature: string | null | undefined,
  secrets: WebhookSecrets,
): Promise<boolean> {
  if (typeof secrets === 'string' && typeof signature === 'string') {
    // Single-secret fast path: no list allocation, and no await where the HMAC is synchronous.
    const expected = decodeDigestHex(signature.trim());
    if (expected === undefined || secrets.length === 0) return false;
    const digest = hmacSha256(secrets, bodyBytes(body));
    return equalBytes(digest instanceof Uint8Array ? digest : await digest, expected);
  }
  return (await matchSignature(body, signature, secrets)) !== null;
}
