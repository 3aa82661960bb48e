import type { Receiver } from '../receiver/create-receiver.js';
import type { ReceiverResponse } from '../receiver/http-response.js';

/**
 * The answer for a failure of the `raw-body` package, which the Node adapters read bodies
 * with: too large, a stream someone else already read (`streamTakenHint` names the fix),
 * or a body that ended early. Matched on raw-body's documented `type` values. For adapter
 * authors.
 */
export function rawBodyErrorAnswer(
  error: unknown,
  receiver: Receiver,
  streamTakenHint: string,
): ReceiverResponse {
  switch ((error as { type?: unknown } | null)?.type) {
    case 'entity.too.large':
      return receiver.reject('payload_too_large');
    case 'stream.not.readable':
    case 'stream.encoding.set':
      return receiver.reject('raw_body_unavailable', streamTakenHint);
    case 'request.aborted':
      return receiver.reject(
        'body_unreadable',
        'The request was aborted before its body was complete.',
      );
    case 'request.size.invalid':
      return receiver.reject(
        'body_unreadable',
        'The body is not as long as its Content-Length header says.',
      );
    default:
      return receiver.reject('body_unreadable', 'The request body could not be read.');
  }
}
