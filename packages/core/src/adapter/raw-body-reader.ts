import { ABORTED_BODY, type BodyRead } from './body-read.js';
import type { NodeRequestLike } from './read-node-body.js';

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
 * which ends the read. Check `nodeBodyTaken` first. For adapter authors.
 *
 * @example
 * import getRawBody from 'raw-body';
 * const readRawBody = rawBodyReader(getRawBody);
 * const platform = { readBody: (req, limit) => readRawBody(req, limit), ... };
 */
export function rawBodyReader(getRawBody: GetRawBody) {
  const read = getRawBody as unknown as (
    stream: NodeRequestLike,
    options: RawBodyOptions,
  ) => Promise<Uint8Array>;
  return (req: NodeRequestLike, limit: number): BodyRead | Promise<Uint8Array> => {
    // Its 'close' is past: raw-body would wait for events that never come.
    if (req.destroyed === true) return ABORTED_BODY;
    const declared = req.headers['content-length'];
    return read(req, typeof declared === 'string' ? { limit, length: declared } : { limit });
  };
}
