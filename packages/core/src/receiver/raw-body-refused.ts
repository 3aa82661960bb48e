import { findSecret } from '../signature/verify.js';
import type { ReceiverContext } from './context.js';
import { type HeadersLike, readHeader } from './headers.js';
import { SIGNATURE_HEADER } from './receive-webhook.js';

/**
 * Counts a body a parser consumed before the adapter, by what shows who sent it: anyone can
 * send a compressed or unsigned body to a public route, and one such request must not raise
 * an alarm about the setup. When what the parser kept carries a valid signature under a
 * configured secret, the service sent it (`raw_body_unavailable`: the alarm is raised at
 * once). A request with a signature that cannot be checked (`raw_body_unverified`) counts
 * only once polling recovers results no webhook delivered; one without a signature
 * (`raw_body_unsigned`) was never the service's and counts toward no alarm.
 */
export async function recordRawBodyRefused(
  context: ReceiverContext,
  headers: HeadersLike,
  read: { hint: string; kept?: Uint8Array },
): Promise<void> {
  const signature = readHeader(headers, SIGNATURE_HEADER);
  if (signature === undefined || signature.trim() === '') {
    context.activity.record('raw_body_unsigned');
    return;
  }
  const { kept } = read;
  if (kept !== undefined && kept.byteLength <= context.maxBodyBytes) {
    const matching = findSecret(kept, signature, context.secrets);
    if (matching instanceof Promise ? await matching : matching) {
      context.activity.record('raw_body_unavailable', read.hint);
      return;
    }
  }
  context.activity.record('raw_body_unverified', read.hint);
}
