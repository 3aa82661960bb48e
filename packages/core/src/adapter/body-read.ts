import type { HeadersLike } from '../receiver/webhook/headers.js';
import type { UnreadBody } from '../receiver/webhook/unread-body.js';
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
export const SIZE_MISMATCH_BODY: BodyRead = {
  kind: 'unreadable',
  reason: 'The body is not as long as its Content-Length header says.',
};

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
