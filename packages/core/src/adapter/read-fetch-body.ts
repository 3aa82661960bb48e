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
 * Whether a Fetch handler's second argument says its `Request` came from Node's HTTP parser:
 * `@hono/node-server` passes `{ incoming, outgoing }` (Hono's `c.env`). Such a body can never
 * be longer than its Content-Length, which the parser enforces. For adapter authors.
 */
export function framedByNodeHttp(env: unknown): boolean {
  const incoming = (env as { incoming?: { headers?: unknown; socket?: unknown } } | null)?.incoming;
  return typeof incoming?.headers === 'object' && typeof incoming.socket === 'object';
}

/** `request.arrayBuffer()`, or `undefined` once `signal` aborts (the body deadline). */
async function wholeBody(request: Request, signal: AbortSignal): Promise<Uint8Array | undefined> {
  if (signal.aborted) return undefined;
  const reading = request.arrayBuffer().then((buffer) => new Uint8Array(buffer));
  // A read that fails after the deadline answered has no one left to tell.
  reading.catch(() => undefined);
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([reading, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Reads a Fetch `Request` body once through its stream, never buffering past `limit` nor
 * past the declared Content-Length, whatever the stream really carries: a `Request` built
 * in the process (a test, a Worker handing one on) is not framed by HTTP, so
 * `arrayBuffer()` would read all of it before anything could count. Stops when `signal`
 * aborts. A body someone already read is `unavailable` with `consumedHint` (the fix).
 *
 * `framedByHttp` (see {@link framedByNodeHttp}) says the body arrived through an HTTP parser
 * that holds it to its Content-Length: a declared length within `limit` is then read with
 * `arrayBuffer()`, which `@hono/node-server` serves straight from Node's request without
 * building a web stream. For adapter authors.
 *
 * @example
 * const read = await readFetchBody(request, limit, signal, 'Read the body only once.');
 */
export async function readFetchBody(
  request: Request,
  limit: number,
  signal: AbortSignal,
  consumedHint: string,
  framedByHttp = false,
): Promise<BodyRead> {
  if (request.bodyUsed) return { kind: 'unavailable', hint: consumedHint };
  if (framedByHttp && !request.headers.has('transfer-encoding')) {
    const declared = declaredLength(request);
    if (declared !== undefined && declared <= limit) {
      try {
        const bytes = await wholeBody(request, signal);
        return bytes === undefined || bytes.byteLength !== declared
          ? UNREADABLE_BODY
          : { kind: 'bytes', bytes };
      } catch {
        return UNREADABLE_BODY;
      }
    }
  }
  const body = request.body;
  if (body === null) return { kind: 'bytes', bytes: EMPTY };
  const declared = declaredLength(request);
  const framed = declared !== undefined && declared < limit;
  const read = await readLimited(body, framed ? declared : limit, signal);
  if (read.kind === 'failed') return UNREADABLE_BODY;
  if (read.kind === 'too-large') return framed ? LONGER : read;
  return declared !== undefined && read.bytes.byteLength !== declared ? SHORTER : read;
}
