import type { VerificationCompletedEvent } from '../delivery/events.js';

/** What `receive` answers; adapters write it back unchanged. */
export interface ReceiverResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * The event delivered while handling this request (`200`, or `202` when handlers are
   * still running). Adapters expose it to later middleware.
   */
  event?: VerificationCompletedEvent;
}

/** Error codes of the Receiver's JSON answers, each documented in docs/troubleshooting.md. */
export type ReceiverErrorCode =
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'signature_missing'
  | 'signature_invalid'
  | 'payload_invalid'
  | 'handler_failed'
  | 'raw_body_unavailable'
  | 'receiver_not_configured'
  | 'body_unreadable'
  | 'body_timeout'
  | 'store_unavailable'
  | 'internal_error';

/** The headers of every JSON answer; a fresh object each time, as callers may add to it. */
export function jsonHeaders(): Record<string, string> {
  return { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
}

export function jsonResponse(
  status: number,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
): ReceiverResponse {
  return withJsonHeaders(status, JSON.stringify(body), headers);
}

/** An answer of serialized JSON, with `headers` added to the JSON ones (a fresh object). */
function withJsonHeaders(
  status: number,
  body: string,
  headers?: Record<string, string>,
): ReceiverResponse {
  const all = jsonHeaders();
  if (headers) Object.assign(all, headers);
  return { status, headers: all, body };
}

export function errorResponse(
  status: number,
  error: ReceiverErrorCode,
  message: string,
  headers?: Record<string, string>,
): ReceiverResponse {
  return jsonResponse(status, { error, message }, headers);
}

/**
 * An error answer whose text never changes, serialized once: floods of unsigned or wrongly
 * signed requests are answered without building the same JSON again for each.
 */
export function fixedErrorResponse(
  status: number,
  error: ReceiverErrorCode,
  message: string,
  headers?: Record<string, string>,
): () => ReceiverResponse {
  const body = JSON.stringify({ error, message });
  return () => withJsonHeaders(status, body, headers);
}
