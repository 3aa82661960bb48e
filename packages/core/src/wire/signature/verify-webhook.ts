import { WebhookVerificationError } from '../../base/errors.js';
import { parseVerificationPayload } from '../payload/parse.js';
import type { VerificationPayload } from '../payload/types.js';
import { SIGNATURE_REFUSALS } from './refusals.js';
import type { LabeledSecret, WebhookSecrets } from './secrets.js';
import { matchSignature } from './verify.js';

/**
 * Verifies a webhook and parses it in one call, for code that handles requests itself
 * instead of using a Receiver: throws `WebhookVerificationError` (`signature_missing` or
 * `signature_invalid`) or `WebhookPayloadError`, else returns the typed payload. It does no
 * replay protection or deduplication: that is what the Receiver adds.
 *
 * @example
 * try {
 *   const payload = await verifyWebhook(rawBody, request.headers.get('x-webhook-signature'), secret);
 *   await markVerified(payload.external_user_id, payload.status === 'verified');
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) return new Response(null, { status: 401 });
 *   throw error;
 * }
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  signature: string | null | undefined,
  secrets: WebhookSecrets | readonly LabeledSecret[],
): Promise<VerificationPayload> {
  if (typeof signature !== 'string' || signature.trim() === '') {
    throw new WebhookVerificationError('signature_missing', SIGNATURE_REFUSALS.signature_missing);
  }
  if ((await matchSignature(body, signature, secrets)) === null) {
    throw new WebhookVerificationError('signature_invalid', SIGNATURE_REFUSALS.signature_invalid);
  }
  return parseVerificationPayload(body);
}
