import type { ReceiverResponse } from '../receiver/webhook/answers.js';
import { ABORTED_BODY, type BodyRead } from './body-read.js';
import type { BodyReading } from './webhook-platform.js';

// Node's `IncomingMessage` and `ServerResponse` as adapters on Node read and answer them,
// described by the parts used: core imports no `node:` module, so it runs on Workers.

/** The parts of Node's `IncomingMessage` the readers use; no `node:` import needed. */
export interface NodeRequestLike {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly readableEnded: boolean;
  readonly readableDidRead?: boolean;
  readonly destroyed?: boolean;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
}

/**
 * True when something read the stream before the adapter: a body parser (Express's
 * body-parser also marks the request with `_body`), or a `data` listener.
 */
export function nodeBodyTaken(req: NodeRequestLike): boolean {
  return (
    req.readableEnded || req.readableDidRead === true || (req as { _body?: unknown })._body === true
  );
}

/** The options of raw-body's `getRawBody` the reader passes. */
export interface RawBodyOptions {
  /** The most bytes to read: raw-body fails with `entity.too.large` past it. */
  limit: number;
  /** The request's Content-Length: raw-body refuses a body of any other length. */
  length?: string;
}

/**
 * raw-body's `getRawBody(stream, options)`, handed in by a Node adapter (core imports no Node
 * package, so it runs on Workers). `never` takes raw-body's own type, whose stream is Node's.
 */
export type GetRawBody = (stream: never, options: RawBodyOptions) => Promise<Uint8Array>;

/**
 * A body reader for Node adapters on raw-body, the reader body-parser uses: it checks the
 * declared length against `limit` before reading, stops at the first byte over it, and
 * refuses a body that is not as long as its Content-Length. It returns raw-body's own
 * promise, which the pipeline races against the body deadline and reads by raw-body's error
 * types; on the deadline the adapter's `408` pauses the stream and closes the connection,
 * which ends the read. A stream something read first (`nodeBodyTaken`) is not read again:
 * `taken` says what the adapter makes of what was left (a parser's kept bytes, a hint);
 * without `taken`, check `nodeBodyTaken` first. For adapter authors.
 *
 * @example
 * import getRawBody from 'raw-body';
 * const platform = { readBody: rawBodyReader(getRawBody, (req) => keptBody(req)), ... };
 */
export function rawBodyReader<Request extends NodeRequestLike = NodeRequestLike>(
  getRawBody: GetRawBody,
  taken?: (req: Request) => BodyRead,
): (req: Request, limit: number) => BodyReading {
  const read = getRawBody as unknown as (
    stream: NodeRequestLike,
    options: RawBodyOptions,
  ) => Promise<Uint8Array>;
  return (req, limit) => {
    if (taken && nodeBodyTaken(req)) return taken(req);
    // Its 'close' is past: raw-body would wait for events that never come.
    if (req.destroyed === true) return ABORTED_BODY;
    const declared = req.headers['content-length'];
    return read(req, typeof declared === 'string' ? { limit, length: declared } : { limit });
  };
}

/** The parts of Node's `ServerResponse` an answer is written with. */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
  readonly req?: { readonly httpVersionMajor?: number; pause?(): unknown };
}

/**
 * Writes an answer to a Node response as it is: status, headers and body, nothing added.
 * With `close`, the rest of a body left unread is not read on, and the connection is closed
 * once the answer is sent: otherwise Node keeps the socket and the sender keeps pushing the
 * rest of a body nobody reads. (HTTP/2 has no such header and ends the stream by itself.)
 * For adapter authors: it is a platform's `respond` as it is.
 *
 * @example
 * const platform = { respond: writeNodeAnswer, ... };
 */
export function writeNodeAnswer(
  res: NodeResponseLike,
  answer: ReceiverResponse,
  close: boolean,
): void {
  res.statusCode = answer.status;
  for (const name in answer.headers) res.setHeader(name, answer.headers[name]!);
  if (close) {
    res.req?.pause?.();
    if (res.req?.httpVersionMajor === 1) res.setHeader('connection', 'close');
  }
  res.end(answer.body);
}
