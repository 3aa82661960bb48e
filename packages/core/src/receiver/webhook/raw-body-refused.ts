import { rejectionLog } from '../../base/logging/rejection-log-limiter.js';
import { findSecret } from '../../wire/signature/verify.js';
import { type HeadersLike, readHeader, SIGNATURE_HEADER } from './headers.js';
import type { WebhookContext } from './webhook-context.js';

/** What counting a refused body works with: the secrets and limit to check it, what it counts. */
export type RawBodyContext = Pick<
  WebhookContext,
  'activity' | 'refusedBodies' | 'secrets' | 'maxBodyBytes' | 'log' | 'now' | 'account'
>;

/**
 * Counts a body a parser consumed before the adapter, by what shows who sent it: anyone can
 * send a compressed or unsigned body to a public route, and one such request must not raise
 * an alarm about the setup. When what the parser kept carries a valid signature under a
 * configured secret, the service sent it (`raw_body_unavailable`: the alarm is raised at
 * once). One whose signature does not hold over what the parser kept (`raw_body_unverified`)
 * counts once what was kept names a user whose result polling then recovers, as what was kept
 * said it (RefusedBodies);
 * one of which nothing was kept (`raw_body_unkept`) once polling recovers results no webhook
 * delivered. Either and its fix is logged at once (at
 * most once a minute, so no sender can flood the log): a newcomer who mounted a parser first
 * reads the fix at the first test webhook. One without a signature (`raw_body_unsigned`) was
 * never the service's: it counts toward no alarm and logs nothing.
 */
export async function recordRawBodyRefused(
  context: RawBodyContext,
  headers: HeadersLike,
  read: { hint: string; kept?: Uint8Array },
): Promise<void> {
  const signature = readHeader(headers, SIGNATURE_HEADER);
  if (signature === undefined || signature.trim() === '') {
    context.activity.record('raw_body_unsigned', undefined, context.account);
    return;
  }
  const { kept } = read;
  if (kept === undefined) {
    context.activity.record('raw_body_unkept', read.hint, context.account);
  } else {
    const matching =
      kept.byteLength <= context.maxBodyBytes && findSecret(kept, signature, context.secrets);
    if (matching instanceof Promise ? await matching : matching) {
      context.activity.record('raw_body_unavailable', read.hint, context.account);
      return;
    }
    context.activity.record('raw_body_unverified', read.hint, context.account);
    context.refusedBodies.note(kept, 'raw_body_unverified', context.account);
  }
  rejectionLog(context.log, context.now).warn(
    `Webhook refused: a body parser consumed the body before its signature could be checked. ${read.hint}`,
  );
}
