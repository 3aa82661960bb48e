import type { BodyRead } from './body-read.js';
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

const ABORTED: BodyRead = {
  kind: 'unreadable',
  reason: 'The request was aborted before its body was complete.',
};
const SIZE_MISMATCH: BodyRead = {
  kind: 'unreadable',
  reason: 'The body is not as long as its Content-Length header says.',
};
const UNREADABLE: BodyRead = { kind: 'unreadable', reason: 'The request body could not be read.' };

/** raw-body's error types (`error.type`), the ones body-parser users know, as reads. */
function readOfError(error: unknown): BodyRead {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return { kind: 'too-large' };
  if (type === 'request.size.invalid') return SIZE_MISMATCH;
  if (type === 'request.aborted') return ABORTED;
  return UNREADABLE;
}

/**
 * A body reader for Node adapters on raw-body, the reader body-parser uses: it checks the
 * declared length against `limit` before reading, stops at the first byte over it, and
 * refuses a body that is not as long as its Content-Length. When `signal` aborts (the body
 * deadline) the stream is paused; the adapter's `408` closes the connection, which ends the
 * read. Check `nodeBodyTaken` first. For adapter authors.
 *
 * @example
 * import getRawBody from 'raw-body';
 * const readRawBody = rawBodyReader(getRawBody);
 * const read = await readRawBody(req, limit, signal);
 */
export function rawBodyReader(getRawBody: GetRawBody) {
  const read = getRawBody as unknown as (
    stream: NodeRequestLike,
    options: RawBodyOptions,
  ) => Promise<Uint8Array>;
  return async (req: NodeRequestLike, limit: number, signal: AbortSignal): Promise<BodyRead> => {
    // Its 'close' is past: raw-body would wait for events that never come.
    if (req.destroyed === true) return ABORTED;
    const declared = req.headers['content-length'];
    const stop = () => req.pause();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const options = typeof declared === 'string' ? { limit, length: declared } : { limit };
      return { kind: 'bytes', bytes: await read(req, options) };
    } catch (error) {
      return readOfError(error);
    } finally {
      signal.removeEventListener('abort', stop);
    }
  };
}
