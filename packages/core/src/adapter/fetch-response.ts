import type { ReceiverResponse } from '../receiver/webhook/answers.js';

/**
 * An answer as a Fetch `Response`, status, headers and body as they are. `close` adds
 * `Connection: close`, which HTTP/1.1 servers on Node honour by hanging up after the answer:
 * the sender cannot keep pushing a body nobody reads. For adapter authors.
 *
 * @example
 * return toFetchResponse(answer);
 */
export function toFetchResponse(answer: ReceiverResponse, close = false): Response {
  const headers = close
    ? Object.assign({}, answer.headers, { connection: 'close' })
    : answer.headers;
  return new Response(answer.body, { status: answer.status, headers });
}
