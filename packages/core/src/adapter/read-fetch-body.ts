import type { BodyRead } from './body-read.js';
import { readLimited } from './read-limited.js';

const EMPTY = new Uint8Array(0);

/** A body that failed while being read: the stream errored or ended early. */
export const UNREADABLE_BODY: BodyRead = {
  kind: 'unreadable',
  reason: 'The request body could not be read to its end.',
};

/**
 * A body framed by its Content-Length within `limit`, read whole by the runtime
 * (`request.arrayBuffer()`): HTTP framing ends it at the declared length, so this never
 * buffers past it, and runtimes such as @hono/node-server 2 read it straight from the socket,
 * several times cheaper than through a web stream. The body deadline cannot stop such a
 * read; its 408 closes the connection, which ends it. `undefined` for a chunked body.
 */
async function framedBody(request: Request, limit: number): Promise<BodyRead | undefined> {
  const declared = request.headers.get('content-length');
  if (declared === null || request.headers.has('transfer-encoding')) return undefined;
  if (!/^\d+$/.test(declared) || Number(declared) > limit) return undefined;
  let buffer: ArrayBuffer;
  try {
    buffer = await request.arrayBuffer();
  } catch {
    return UNREADABLE_BODY;
  }
  return buffer.byteLength > limit
    ? { kind: 'too-large' }
    : { kind: 'bytes', bytes: new Uint8Array(buffer) };
}

/**
 * Reads a Fetch `Request` body once, never buffering past `limit`, stopping when `signal`
 * aborts (a chunked body; a body framed by its Content-Length is read whole). A body
 * someone already read is `unavailable` with `consumedHint` (the fix). For adapter authors.
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
  if (request.body === null) return { kind: 'bytes', bytes: EMPTY };
  const framed = await framedBody(request, limit);
  if (framed) return framed;
  const read = await readLimited(request.body, limit, signal);
  return read.kind === 'failed' ? UNREADABLE_BODY : read;
}
