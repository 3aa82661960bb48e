/**
 * What a webhook refused for its signature is told, the same from `verifyWebhook` and from the
 * Receiver's `401` answers: what is wrong, and what to check.
 */
export const SIGNATURE_REFUSALS = {
  signature_missing:
    'The X-Webhook-Signature header is missing. Webhooks from the service always carry it.',
  signature_invalid:
    'The X-Webhook-Signature header does not match the raw body for any configured secret. Check FACEVERIFY_WEBHOOK_SECRET against the signing secret in the service Settings, and that the exact bytes received are verified, before anything (a body parser, a proxy) alters them.',
} as const;
