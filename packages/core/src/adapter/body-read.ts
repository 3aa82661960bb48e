import type { HeadersLike } from '../webhook/headers.js';
import type { UnreadBody } from '../webhook/unread-body.js';
import { exactTextBytes } from './exact-text-bytes.js';

/**
 * How an adapter's body read ended: the exact bytes, or why not (see UnreadBody), which the
 * Receiver answers (`too-large` 413, `unavailable` 500 `raw_body_unavailable` with `hint`,
 * `unreadable` 400 `body_unreadable` with `reason`).
 */
export type BodyRead =
  | { kind: 'bytes'; bytes: Uint8Array }
  | Exclude<UnreadBody, { kind: 'timeout' }>;

const encoder = new TextEncoder();

/** A read that failed, or ended before its Content-Length: the stream errored or ended early. */
export const UNREADABLE_BODY: BodyRead = {
  kind: 'unreadable',
  reason: 'The request body could not be read to its end.',
};
export const ABORTED_BODY: BodyRead = {
  kind: 'unreadable',
  reason: 'The request was aborted before its body was complete.',
};
const SIZE_MISMATCH: BodyRead = {
  kind: 'unreadable',
  reason: 'The body is not as long as its Content-Length header says.',
};

/**
 * How a platform's promise of the body ended, as a read: bytes (a view, or a Fetch
 * `ArrayBuffer`) are the body only when as long as `declared`, the Content-Length (a server's
 * parser holds a body to it, but can end early); a read the reader decided is as it is.
 */
export function settledRead(
  value: Uint8Array | ArrayBuffer | BodyRead,
  declared: string | undefined,
): BodyRead {
  if ('kind' in value) return value;
  const bytes = ArrayBuffer.isView(value) ? value : new Uint8Array(value);
  if (declared !== undefined && /^\d+$/.test(declared) && bytes.byteLength !== Number(declared)) {
    return UNREADABLE_BODY;
  }
  return { kind: 'bytes', bytes };
}

/** A rejected read by raw-body's error types (`error.type`), the ones body-parser users know. */
export function failedRead(error: unknown): BodyRead {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return { kind: 'too-large' };
  if (type === 'request.size.invalid') return SIZE_MISMATCH;
  if (type === 'request.aborted') return ABORTED_BODY;
  return UNREADABLE_BODY;
}

/**
 * Bytes a body parser kept (`express.raw()`, a `verify` callback): the bytes as sent only
 * when nothing was decompressed on the way. Otherwise `unavailable` with `decodedHint`.
 * For adapter authors.
 */
export function bytesAsSent(
  bytes: Uint8Array,
  contentEncoding: string | undefined,
  decodedHint: string,
): BodyRead {
  const encoding = contentEncoding?.trim().toLowerCase() ?? '';
  if (encoding === '' || encoding === 'identity') return { kind: 'bytes', bytes };
  return { kind: 'unavailable', hint: decodedHint, kept: bytes };
}

/**
 * Text a body parser kept (Koa's `rawBody`, Hono's cached `text()`): the bytes as sent only
 * when provably so (see `exactTextBytes`). Otherwise `unavailable` with the hint `hintFor`
 * builds from the reason. For adapter authors.
 *
 * @example
 * return textAsSent(ctx.request.rawBody, ctx.req.headers, (reason) => `Mount it first: ${reason}.`);
 */
export function textAsSent(
  text: string,
  headers: HeadersLike,
  hintFor: (reason: string) => string,
): BodyRead {
  const proof = exactTextBytes(text, headers);
  if ('bytes' in proof) return { kind: 'bytes', bytes: proof.bytes };
  return { kind: 'unavailable', hint: hintFor(proof.reason), kept: encoder.encode(text) };
}
