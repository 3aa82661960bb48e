import type { Receiver } from '../receiver/create-receiver.js';
import { errorResponse, type ReceiverResponse } from '../receiver/http-response.js';
import { payloadTooLarge } from '../receiver/receive-webhook.js';
import { receiverInternals } from '../receiver/receiver-internals.js';
import { answerName } from '../receiver/webhook-outcomes.js';
import type { DeadlineRead } from './body-deadline.js';

/**
 * The answer to a body the pipeline could not hand to the Receiver: too large (`413`), a
 * body a parser consumed before the adapter ran (`500 raw_body_unavailable`, the hint says
 * how to fix the mount order and is logged by the Receiver's alarm), a body that ended early or was aborted
 * (`400 body_unreadable`), or one that took longer than `bodyTimeoutMs` (`408`).
 */
export function refusalAnswer(
  read: Exclude<DeadlineRead, { kind: 'bytes' }>,
  receiver: Receiver,
  bodyTimeoutMs: number,
): ReceiverResponse {
  const answer = refusal(read, receiver, bodyTimeoutMs);
  // The Receiver never saw this request; its webhook counter still must.
  receiverInternals(receiver)?.telemetry?.webhookAnswered(answer.status, answerName(answer));
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
    case 'unavailable': {
      // A setup mistake, not a per-request event: the Receiver's alarm logs it once per
      // window, with the adapter's hint.
      receiverInternals(receiver)?.activity.record('raw_body_unavailable', read.hint);
      return errorResponse(
        500,
        'raw_body_unavailable',
        `The raw request body is not available, so its signature cannot be checked. ${read.hint}`,
      );
    }
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
