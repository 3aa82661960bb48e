/**
 * What `raw_body_unavailable` tells the developer when a hook read the body first; the
 * Receiver logs it once. It names the concrete fix and repeats no request data.
 */
export const STREAM_TAKEN_HINT =
  'A hook (onRequest or preParsing) read the request body before verificationWebhook() could, so the bytes as sent are gone: let no hook read the body on the webhook route (fastify-raw-body is told to skip it already), or register verificationWebhook() in a scope without that hook.';
