/**
 * Express 4 and 5 middleware for signed face verification webhooks.
 *
 * @module @faceverify/express
 */

export { captureRawBody } from './raw-body/captured-body.js';
export { verificationWebhook } from './webhook/index.js';
export type { VerificationWebhookOptions } from './webhook/options.js';
export type { VerificationWebhookMiddleware } from './webhook/types.js';
