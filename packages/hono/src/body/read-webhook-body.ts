import type { BodyRead, BodyReader } from '@faceverify/core/adapter';
import {
  bunServedOf,
  nodeIncomingOf,
  readFetchBody,
  textAsSent,
  UNREADABLE_BODY,
} from '@faceverify/core/adapter';
import type { Context, HonoRequest } from 'hono';
import { bodyCacheOf } from './body-cache.js';
import { HINTS } from './hints.js';

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
    return UNREADABLE_BODY;
  }
  const kinds = Object.keys(cache).join(', ');
  return kinds === '' ? undefined : { kind: 'unavailable', hint: HINTS.parsedOnly(kinds) };
}

/**
 * The exact bytes of the request body, read at most once and never past `limit`, through
 * the Fetch API (on `@hono/node-server`, straight from Node's request). The bytes are left in Hono's body cache, so later `c.req.json()` or
 * `c.req.text()` still work.
 */
export const readWebhookBody: BodyReader<Context> = async (c, limit, signal) => {
  const req = c.req;
  const cached = await fromBodyCache(req);
  if (cached) return cached;
  const read = await readFetchBody(
    req.raw,
    limit,
    signal,
    HINTS.rawConsumed,
    // Node's parser, or Bun.serve's, held the body to its Content-Length: read it whole.
    nodeIncomingOf(c.env) ?? bunServedOf(c.env, req.raw),
  );
  if (read.kind === 'bytes') bodyCacheOf(req).arrayBuffer = Promise.resolve(ownBuffer(read.bytes));
  return read;
};

/** The bytes' own ArrayBuffer, copied only when they are a view into a larger one. */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole && bytes.buffer instanceof ArrayBuffer ? bytes.buffer : bytes.slice().buffer;
}
