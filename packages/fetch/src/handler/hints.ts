/**
 * What `raw_body_unavailable` tells the developer; the Receiver logs it once. It names the
 * concrete fix and repeats no request data.
 */
export const BODY_CONSUMED_HINT =
  'The request body was read before verificationWebhook() got the Request (request.json(), request.text() or request.arrayBuffer()): pass the untouched Request to the handler, or read a request.clone() instead.';
