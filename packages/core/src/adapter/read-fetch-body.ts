import type { BodyRead } from './body-read.js';
import { readLimited } from './read-limited.js';

const EMPTY = new Uint8Array(0);

/** A body that failed while being read: the stream errored or ended early. */
export const UNREADABLE_BODY: BodyRead = {
  kind: 'unreadable',
  reason: 'The request body could not be read to its end.',
};

const LONGER: BodyRead = {
  kind: 'unreadable',
  reason: 'The body is longer than its Content-Length header says.',
};

const SHORTER: BodyRead = {
  kind: 'unreadable',
  reason: 'The body is not as long as its Content-Length header says.',
};

/** The declared length when it is a plain number of bytes, else `undefined`. */
function declaredLength(request: Request): number | undefined {
  const declared = request.headers.get('content-length');
  if (declared === null || !/^\d+$/.test(declared)) return undefined;
  return Number(declared);
}

/**
 * Reads a Fetch `Request` body once through its stream, never buffering past `limit` nor
 * past the declared Content-Length, whatever the stream really carries: a `Request` built
 * in the process (a test, a Worker handing one on) is not framed by HTTP, so
 * `arrayBuffer()` would read all of it before anything could count. Stops when `signal`
 * aborts. A body someone already read is `unavailable` with `consumedHint` (the fix). For
 * adapter authors.
 *
 * @example
 * const read = await readFetchBody(request, limit, signal, 'Read the body only once.');
 */
export async function readFetchBody(
  request: Request,
  limit: number,
  signal: AbortSignal,
  consumedHint: string,
): Promise<BodyRead> {
  if (request.bodyUsed) return { kind: 'unavailable', hint: consumedHint };
  const body = request.body;
  if (body === null) return { kind: 'bytes', bytes: EMPTY };
  const declared = declaredLength(request);
  const framed = declared !== undefined && declared < limit;
  const read = await readLimited(body, framed ? declared : limit, signal);
  if (read.kind === 'failed') return UNREADABLE_BODY;
  if (read.kind === 'too-large') return framed ? LONGER : read;
  return declared !== undefined && read.bytes.byteLength !== declared ? SHORTER : read;
}
