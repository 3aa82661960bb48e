import type { ReceiverErrorCode } from '@faceverify/core';

/**
 * What to do about each answer code of a Receiver, in the words of docs/troubleshooting.md,
 * for a person who just sent it a webhook by hand.
 */
export const FIX_FOR_CODE: Record<ReceiverErrorCode, string> = {
  signature_missing:
    'No X-Webhook-Signature header arrived: a proxy in front of the receiver removed it.',
  signature_invalid:
    "The receiver's FACEVERIFY_WEBHOOK_SECRET is not the one this command signed with (the service's Settings has the right one; during a rotation list both, in the order of the rotation's current step: docs/security.md, Rotation), or something between rewrote the body. `faceverify doctor --body FILE --signature HEX` on a captured request says which.",
  method_not_allowed: 'The URL answers, but not as a webhook route for POST: check the path.',
  payload_too_large: "The body is over the receiver's maxBodyBytes (default 256 KiB).",
  payload_invalid:
    'Signed correctly, but the receiver could not read the payload: the message names the field.',
  handler_failed:
    'Your verification.completed handler threw. The result is kept and delivered again with backoff; the server log and the error event have the details.',
  raw_body_unavailable:
    'A body parser read the body before the webhook middleware. Mount the middleware before express.json() (or koa-bodyparser), or use captureRawBody.',
  receiver_not_configured:
    'The receiver could not be built (for example no FACEVERIFY_WEBHOOK_SECRET where it runs). Its log has the ConfigurationError, which names what to set.',
  account_missing:
    "The receiver serves several accounts and this URL names none: send to /webhooks/verification/<account id> (the route parameter :account), as each account's callback URL is.",
  account_unknown:
    'No account of the receiver has the id in this URL: check it against the accounts option (or what its resolver knows).',
  account_unavailable:
    "The receiver could not resolve the account now (its resolver failed, or accounts.maxResolvesPerMinute was spent): its error handler has the resolver's error.",
  body_unreadable: 'The request ended before its body was complete: a network or proxy problem.',
  body_timeout: "The body did not arrive within the receiver's bodyTimeoutMs.",
  store_unavailable:
    "The receiver's store (Redis, PostgreSQL, D1) failed. Check its connection; polling still picks sessions up once it is back.",
  internal_error:
    'The receiver failed in an unexpected way: report it, with the output of its error handler.',
};

/** An explanation for answers that carry no error code. */
export function explainStatus(status: number): string {
  if (status === 404)
    return 'Nothing is mounted at this path: check the URL against where your app mounts the webhook middleware.';
  if (status >= 300 && status < 400)
    return 'The URL redirects; the service does not follow redirects. Use the final URL.';
  return 'The answer is not one a faceverify Receiver gives: is this URL the webhook route?';
}
