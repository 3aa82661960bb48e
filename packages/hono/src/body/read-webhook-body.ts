import {
  exactTextBytes,
  type Receiver,
  type ReceiverResponse,
  readLimited,
} from '@faceverify/core';
import type { HonoRequest } from 'hono';
import { bodyCacheOf } from './body-cache.js';
import { HINTS } from './hints.js';

export type BodyOutcome =
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'refused'; answer: ReceiverResponse };

const refused = (answer: ReceiverResponse): BodyOutcome => ({ kind: 'refused', answer });

/**
 * A body an earlier middleware read through Hono, which caches it: usable only as bytes
 * (arrayBuffer, blob) or as text that provably equals them. Parsed JSON or form data is
 * never turned back into bytes.
 */
async function fromBodyCache(
  req: HonoRequest,
  receiver: Receiver,
): Promise<BodyOutcome | undefined> {
  const cache = bodyCacheOf(req);
  try {
    if (cache.arrayBuffer) return { kind: 'bytes', bytes: new Uint8Array(await cache.arrayBuffer) };
    if (cache.blob) {
      const blob = await cache.blob;
      return { kind: 'bytes', bytes: new Uint8Array(await blob.arrayBuffer()) };
    }
    if (cache.text) {
      const proof = exactTextBytes(await cache.text, req.raw.headers);
      if ('bytes' in proof) return { kind: 'bytes', bytes: proof.bytes };
      return refused(receiver.reject('raw_body_unavailable', HINTS.unprovableText(proof.reason)));
    }
  } catch {
    return refused(
      receiver.reject('body_unreadable', 'The request body could not be read to its end.'),
    );
  }
  const kinds = Object.keys(cache);
  if (kinds.length === 0) return undefined;
  return refused(receiver.reject('raw_body_unavailable', HINTS.parsedOnly(kinds.join(', '))));
}

/**
 * The exact bytes of the request body through the Fetch API, read at most once and never
 * past `receiver.maxBodyBytes`: a Content-Length over the limit is refused before reading,
 * and a chunked body is cut off as soon as it passes the limit. The bytes are left in
 * Hono's body cache, so later `c.req.json()` or `c.req.text()` still work.
 */
export async function readWebhookBody(req: HonoRequest, receiver: Receiver): Promise<BodyOutcome> {
  const cached = await fromBodyCache(req, receiver);
  if (cached) return cached;
  const { raw } = req;
  if (raw.bodyUsed) return refused(receiver.reject('raw_body_unavailable', HINTS.rawConsumed));
  const declared = raw.headers.get('content-length');
  if (declared !== null && Number(declared) > receiver.maxBodyBytes) {
    return refused(receiver.reject('payload_too_large'));
  }
  if (raw.body === null) return { kind: 'bytes', bytes: new Uint8Array(0) };
  const read = await readLimited(raw.body, receiver.maxBodyBytes);
  if (read.kind === 'too-large') return refused(receiver.reject('payload_too_large'));
  if (read.kind === 'failed') {
    return refused(
      receiver.reject('body_unreadable', 'The request body could not be read to its end.'),
    );
  }
  bodyCacheOf(req).arrayBuffer = Promise.resolve(read.bytes.buffer);
  return { kind: 'bytes', bytes: read.bytes };
}
