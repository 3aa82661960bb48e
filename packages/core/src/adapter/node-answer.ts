import type { ReceiverResponse } from '../receiver/webhook/answers.js';

/** The parts of Node's `ServerResponse` an answer is written with. */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
  readonly req?: { readonly httpVersionMajor?: number };
}

/**
 * Writes an answer to a Node response as it is: status, headers and body, nothing added.
 * With `close`, the connection is closed once the answer is sent: otherwise Node keeps the
 * socket and the sender keeps pushing the rest of a body nobody reads. (HTTP/2 has no such
 * header and ends the stream by itself.) For adapter authors.
 *
 * @example
 * writeNodeAnswer(res, answer, close);
 */
export function writeNodeAnswer(
  res: NodeResponseLike,
  answer: ReceiverResponse,
  close: boolean,
): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  if (close && res.req?.httpVersionMajor === 1) res.setHeader('connection', 'close');
  res.end(answer.body);
}
