import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Machine-readable error codes of the emulator's JSON error bodies. */
export type ErrorCode =
  | 'invalid_api_key'
  | 'dashboard_token_not_accepted'
  | 'invalid_request'
  | 'session_not_found'
  | 'session_expired'
  | 'session_already_completed'
  | 'session_not_completed'
  | 'service_unavailable'
  | 'invalid_image_signature'
  | 'image_url_expired'
  | 'payload_too_large'
  | 'body_timeout'
  | 'not_found'
  | 'method_not_allowed'
  | 'misdirected_request'
  | 'control_token_required'
  | 'account_not_found'
  | 'internal_error';

/** An error answer: `{ "success": false, "error": code, "message": text }`. */
export function errorResponse(
  c: Context,
  status: ContentfulStatusCode,
  error: ErrorCode,
  message: string,
): Response {
  return c.json({ success: false, error, message }, status);
}
