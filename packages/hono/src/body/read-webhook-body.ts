import type { BodyRead, BodyReader } from '@faceverify/core/adapter';
import { readFetchBody, textAsSent } from '@faceverify/core/adapter';
import type { HonoRequest } from 'hono';
import { bodyCacheOf } from './body-cache.js';
import { HINTS } from './hints.js';

const UNREADABLE: BodyRead = {
  kind: 'unreadable',
  reason: 'The request body could not be read to its end.',
};

/**
 * A body an earlier middleware read through Hono, which caches it: usable only as bytes
 * (arrayBuffer, blob) or as text that provably equals them. Parsed JSON or form data is
 * never turned back into bytes.
 */
async function fromBodyCache(req: HonoRequest): Promise<BodyRead | undefined> {
  const cache = bodyCacheOf(req);
  const kept = cache.arrayBuffer ?? cache.blob?.then((blob) => blob.arrayBuffer());
  try {
    if (kept) return { kind: 'bytes', bytes: new Uint8Array(await kept) };
    if (cache.text) return textAsSent(await cache.text, req.raw.headers, HINTS.unprovableText);
  } catch {
    return UNREADABLE;
  }
  const kinds = Object.keys(cache).join(', ');
  return kinds === '' ? undefined : { kind: 'unavailable', hint: HINTS.parsedOnly(kinds) };
}

/**
 * A body framed by its Content-Length, read whole by the runtime (`c.req.arrayBuffer()`,
 * which Hono caches for later middleware). The pipeline has already refused a declared length
 * over `limit`, and HTTP framing ends the body at the declared length, so this never buffers
 * past it; @hono/node-server 2 reads such a body straight from the socket, several times
 * cheaper than through a web stream. The body deadline cannot stop such a read; its 408
 * closes the connection, which ends it. A chunked body has no such bound: `undefined`, read
 * it as a stream.
 */
async function framedBody(req: HonoRequest, limit: number): Promise<BodyRead | undefined> {
  const headers = req.raw.headers;
  const declared = headers.get('content-length');
  if (declared === null || headers.has('transfer-encoding') || req.raw.bodyUsed) return undefined;
  if (!/^\d+$/.test(declared) || Number(declared) > limit) return undefined;
  let buffer: ArrayBuffer;
  try {
    buffer = await req.arrayBuffer();
  } catch {
    return UNREADABLE;
  }
  return buffer.byteLength > limit
    ? { kind: 'too-large' }
    : { kind: 'bytes', bytes: new Uint8Array(buffer) };
}

/**
 * The exact bytes of the request body through the Fetch API, read at most once and never
 * past `limit`. The bytes are left in Hono's body cache, so later `c.req.json()` or
 * `c.req.text()` still work.
 */
export const readWebhookBody: BodyReader<HonoRequest> = async (req, limit, signal) => {
  const cached = await fromBodyCache(req);
  if (cached) return cached;
  const framed = await framedBody(req, limit);
  if (framed) return framed;
  const read = await readFetchBody(req.raw, limit, signal, HINTS.rawConsumed);
  if (read.kind === 'bytes')
    bodyCacheOf(req).arrayBuffer = Promise.resolve(new Uint8Array(read.bytes).buffer);
  return read;
};
