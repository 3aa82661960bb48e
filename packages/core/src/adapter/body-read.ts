import type { HeadersLike } from '../receiver/headers.js';
import { exactTextBytes } from './exact-text-bytes.js';

/**
 * How an adapter's body read ended. The pipeline turns each failure into its answer:
 * `too-large` 413, `unavailable` 500 `raw_body_unavailable` (with `hint`, the fix, logged
 * once), `unreadable` 400 `body_unreadable` (with `reason`, what happened). Hints and
 * reasons are fixed sentences, never request data: a sender must not fill the log.
 */
export type BodyRead =
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'too-large' }
  | {
      kind: 'unavailable';
      hint: string;
      /**
       * What the parser kept of the body, when it kept something (decompressed bytes, text,
       * parsed JSON written out again): never verified as the webhook, only checked against
       * its signature, so that a refusal counts toward the `raw_body_unavailable` alarm
       * only when the service signed it, never when a stranger sent it.
       */
      kept?: Uint8Array;
    }
  | { kind: 'unreadable'; reason: string };

const encoder = new TextEncoder();

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
