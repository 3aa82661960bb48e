import type { BodyRead, BodyReading } from '@faceverify/core/adapter';
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
async function fromBodyCache(req: HonoRequest): Promise<BodyRead> {
  const cache = bodyCacheOf(req);
  const kept = cache.arrayBuffer ?? cache.blob?.then((blob) => blob.arrayBuffer());
  try {
    if (kept) return { kind: 'bytes', bytes: new Uint8Array(await kept) };
    if (cache.text) return textAsSent(await cache.text, req.raw.headers, HINTS.unprovableText);
  } catch {
    return UNREADABLE_BODY;
  }
  return { kind: 'unavailable', hint: HINTS.parsedOnly(Object.keys(cache).join(', ')) };
}

/** Whether an earlier middleware read the body: an entry is only ever added by reading it. */
function isSpent(cache: object): boolean {
  for (const _kind in cache) return true;
  return false;
}

/**
 * The exact bytes of the request body, read at most once and never past `limit`, through
 * the Fetch API (on `@hono/node-server`, straight from Node's request). A body an earlier
 * middleware read through Hono is taken from its cache (see `fromBodyCache`).
 */
export function readWebhookBody(c: Context, limit: number, signal: AbortSignal): BodyReading {
  const req = c.req;
  if (isSpent(bodyCacheOf(req))) return fromBodyCache(req);
  return readFetchBody(
    req.raw,
    limit,
    signal,
    HINTS.rawConsumed,
    // Node's parser, or Bun.serve's, held the body to its Content-Length: read it whole.
    nodeIncomingOf(c.env) ?? bunServedOf(c.env, req.raw),
  );
}

/**
 * Leaves the bytes read in Hono's body cache, so later `c.req.json()` or `c.req.text()` still
 * work; a body taken from the cache is there already.
 */
export function spent(c: Context, bytes: Uint8Array): void {
  const cache = bodyCacheOf(c.req);
  if (!isSpent(cache)) cache.arrayBuffer = Promise.resolve(ownBuffer(bytes));
}

/** The bytes' own ArrayBuffer, copied only when they are a view into a larger one. */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole && bytes.buffer instanceof ArrayBuffer ? bytes.buffer : bytes.slice().buffer;
}
