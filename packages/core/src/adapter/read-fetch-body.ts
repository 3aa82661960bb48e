import { readHeader } from '../receiver/webhook/headers.js';
import { type LimitedRead, readLimited } from '../wire/read-limited.js';
import { type BodyRead, UNREADABLE_BODY } from './body-read.js';
import type { BodyReading } from './webhook-platform.js';

const EMPTY: BodyRead = { kind: 'bytes', bytes: new Uint8Array(0) };

const LONGER: BodyRead = {
  kind: 'unreadable',
  reason: 'The body is longer than its Content-Length header says.',
};

const SHORTER: BodyRead = {
  kind: 'unreadable',
  reason: 'The body is not as long as its Content-Length header says.',
};

/** The declared length when it is a plain number of bytes, else `undefined`. */
function lengthOf(declared: string | null | undefined): number | undefined {
  if (declared == null || !/^\d+$/.test(declared)) return undefined;
  return Number(declared);
}

/**
 * A request as the HTTP server that parsed it from a connection read its headers. The server's
 * parser holds the body to its Content-Length, so a body it delivers is never longer.
 */
export interface ServerParsed {
  /** The headers as the server read them: lower-case names, a plain record. */
  readonly headers: Record<string, string | readonly string[] | undefined>;
}

/** The parts of Node's `IncomingMessage` that `@hono/node-server` serves a `Request` from. */
export interface NodeIncomingLike extends ServerParsed {
  /** The connection it arrived on: present only on a request Node's HTTP server parsed. */
  readonly socket: object;
}

/**
 * Node's request under a Fetch handler's `Request`, when its second argument says it came
 * from Node's HTTP parser: `@hono/node-server` passes `{ incoming, outgoing }` (Hono's
 * `c.env`). Such a body can never be longer than its Content-Length, which the parser
 * enforces; and its headers can be read as Node parsed them, without building Fetch
 * `Headers` from them. For adapter authors.
 */
export function nodeIncomingOf(env: unknown): NodeIncomingLike | undefined {
  const incoming = (env as { incoming?: { headers?: unknown; socket?: unknown } } | null)?.incoming;
  return typeof incoming?.headers === 'object' &&
    incoming.headers !== null &&
    typeof incoming.socket === 'object' &&
    incoming.socket !== null
    ? (incoming as NodeIncomingLike)
    : undefined;
}

/**
 * The request as `Bun.serve` parsed it, when a Fetch handler's second argument is the Bun
 * server that read it from a connection: `server.requestIP(request)` answers only for those (a
 * `Request` built or cloned in the process gets `null`), so the body is held to its
 * Content-Length and `arrayBuffer()` reads it without a web stream. For adapter authors.
 */
export function bunServedOf(context: unknown, request: Request): ServerParsed | undefined {
  const requestIP = (context as { requestIP?: unknown } | null | undefined)?.requestIP;
  if (typeof requestIP !== 'function') return undefined;
  try {
    if (requestIP.call(context, request) == null) return undefined;
  } catch {
    return undefined;
  }
  const { headers } = request;
  return {
    headers: {
      'content-length': headers.get('content-length') ?? undefined,
      'transfer-encoding': headers.get('transfer-encoding') ?? undefined,
    },
  };
}

/**
 * Reads a Fetch `Request` body once through its stream, never buffering past `limit` nor
 * past the declared Content-Length, whatever the stream really carries: a `Request` built
 * in the process (a test, a Worker handing one on) is not framed by HTTP, so
 * `arrayBuffer()` would read all of it before anything could count. Stops when `signal`
 * aborts. A body someone already read is `unavailable` with `consumedHint` (the fix). What
 * it returns is a platform's `readBody` (see `BodyReading`): a read decided at once, or a
 * promise the pipeline races against the body deadline.
 *
 * `parsed` ({@link nodeIncomingOf}, {@link bunServedOf}) is the request as the HTTP server
 * that read it from a connection saw it, whose parser holds the body to its Content-Length: a
 * declared length within `limit` is then read with `arrayBuffer()`, which `@hono/node-server`
 * serves straight from Node's request and Bun from its own, without a web stream. For adapter
 * authors.
 *
 * @example
 * readBody: (request, limit, signal) => readFetchBody(request, limit, signal, 'Read it once.'),
 */
export function readFetchBody(
  request: Request,
  limit: number,
  signal: AbortSignal,
  consumedHint: string,
  parsed?: ServerParsed,
): BodyReading {
  if (request.bodyUsed) return { kind: 'unavailable', hint: consumedHint };
  if (parsed && parsed.headers['transfer-encoding'] === undefined) {
    const declared = lengthOf(readHeader(parsed.headers, 'content-length'));
    // The runtime's own promise: the pipeline holds its bytes to the Content-Length, and
    // answers `408` when the deadline passes whatever it does (the connection it closes ends it).
    if (declared !== undefined && declared <= limit) return request.arrayBuffer();
  }
  const body = request.body;
  if (body === null) return EMPTY;
  const declared = lengthOf(request.headers.get('content-length'));
  const framed = declared !== undefined && declared < limit;
  return readLimited(body, framed ? declared : limit, signal).then((read) =>
    streamRead(read, framed, declared),
  );
}

/** A stream read as a body read: past a Content-Length within the limit, the body is longer than it says. */
function streamRead(read: LimitedRead, framed: boolean, declared: number | undefined): BodyRead {
  if (read.kind === 'failed') return UNREADABLE_BODY;
  if (read.kind === 'too-large') return framed ? LONGER : read;
  return declared !== undefined && read.bytes.byteLength !== declared ? SHORTER : read;
}
