import type { Receiver } from '../receiver/create-receiver.js';
import { errorResponse, type ReceiverResponse } from '../receiver/http-response.js';
import type { DeadlineRead } from './body-deadline.js';

/** The answer to a body the pipeline could not hand to the Receiver. */
export function refusalAnswer(
  read: Exclude<DeadlineRead, { kind: 'bytes' }>,
  receiver: Receiver,
  bodyTimeoutMs: number,
): ReceiverResponse {
  switch (read.kind) {
    case 'too-large':
      return receiver.reject('payload_too_large');
    case 'unavailable':
      return receiver.reject('raw_body_unavailable', read.hint);
    case 'unreadable':
      return receiver.reject('body_unreadable', read.reason);
    case 'timeout':
      return errorResponse(
        408,
        'body_timeout',
        `The request body did not arrive within ${bodyTimeoutMs} ms (bodyTimeoutMs), so nothing was verified. Send the whole body promptly; a sender that retries will be accepted.`,
      );
  }
}
