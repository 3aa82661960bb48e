import { equalBytes, hmacSha256 } from '#hmac';
import { bodyBytes } from './bytes.js';
import { fromHex, toHex } from './hex.js';
import { type LabeledSecret, normalizeSecrets, type WebhookSecrets } from './secrets.js';

const DIGEST_BYTES = 32;

/**
 * Signs a body the way the service does: lowercase hex HMAC-SHA256 of the exact bytes.
 *
 * @example
 * const signature = await sign(rawBody, process.env.FACEVERIFY_WEBHOOK_SECRET!);
 */
export async function sign(body: string | Uint8Array, secret: string): Promise<string> {
  return toHex(await hmacSha256(secret, bodyBytes(body)));
}

/** Which secret a signature matched: its position in the list (0 is the newest) and its label. */
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
  if (typeof signature !== 'string') return null;
  const expected = fromHex(signature.trim(), DIGEST_BYTES);
  if (!expected) return null;
  const bytes = bodyBytes(body);
  const list = normalizeSecrets(secrets);
  let match: SecretMatch | null = null;
  // No early exit: the time taken does not reveal which secret matched.
  for (let index = 0; index < list.length; index++) {
    const entry = list[index]!;
    if (equalBytes(await hmacSha256(entry.secret, bytes), expected) && match === null) {
      match = { index, label: entry.label };
    }
  }
  return match;
}

/**
 * Checks an `X-Webhook-Signature` value against the raw body with one or several secrets.
 * Returns `false`, never throws, for a missing, empty, short, long, non-hex or prefixed
 * signature.
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
    // Single-secret fast path: no list allocation on the hot path.
    const expected = fromHex(signature.trim(), DIGEST_BYTES);
    return (
      expected !== undefined &&
      secrets.length > 0 &&
      equalBytes(await hmacSha256(secrets, bodyBytes(body)), expected)
    );
  }
  return (await matchSignature(body, signature, secrets)) !== null;
}
