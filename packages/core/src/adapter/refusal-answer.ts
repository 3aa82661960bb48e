import type { Receiver } from '../receiver/create-receiver.js';
import type { HeadersLike } from '../receiver/headers.js';
import { errorResponse, type ReceiverResponse } from '../receiver/http-response.js';
import { payloadTooLarge } from '../receiver/receive-webhook.js';
import { receiverInternals } from '../receiver/receiver-internals.js';
import { answerName } from '../receiver/webhook-outcomes.js';
import type { DeadlineRead } from './body-deadline.js';

/**
 * The answer to a body the pipeline could not hand to the Receiver: too large (`413`), a
 * body a parser consumed before the adapter ran (`500 raw_body_unavailable`, the hint says
 * how to fix the mount order; the Receiver's alarm logs it once the service's own traffic
 * shows the fault), a body that ended early or was aborted (`400 body_unreadable`), or one
 * that took longer than `bodyTimeoutMs` (`408`).
 */
export async function refusalAnswer(
  read: Exclude<DeadlineRead, { kind: 'bytes' }>,
  receiver: Receiver,
  bodyTimeoutMs: number,
  headers: HeadersLike,
): Promise<ReceiverResponse> {
  const internals = receiverInternals(receiver);
  // A setup mistake, not a per-request event, but only when the service sent the request:
  // the Receiver weighs it (its signature, what polling recovers) before its alarm logs it.
  if (read.kind === 'unavailable') await internals?.rawBodyRefused(headers, read);
  const answer = refusal(read, receiver, bodyTimeoutMs);
  // The Receiver never saw this request; its webhook counter still must.
  internals?.telemetry?.webhookAnswered(answer.status, answerName(answer));
  return answer;
}

function refusal(
  read: Exclude<DeadlineRead, { kind: 'bytes' }>,
  receiver: Receiver,
  bodyTimeoutMs: number,
): ReceiverResponse {
  switch (read.kind) {
    case 'too-large':
      return payloadTooLarge(receiver.maxBodyBytes);
    case 'unavailable':
      return errorResponse(
        500,
        'raw_body_unavailable',
        `The raw request body is not available, so its signature cannot be checked. ${read.hint}`,
      );
    case 'unreadable':
      return errorResponse(400, 'body_unreadable', read.reason);
    case 'timeout':
      return errorResponse(
        408,
        'body_timeout',
        `The request body did not arrive within ${bodyTimeoutMs} ms (bodyTimeoutMs), so nothing was verified. Send the whole body promptly; a sender that retries will be accepted.`,
      );
  }
}
