/**
 * Koa 2 and 3 middleware for signed face verification webhooks, usable as a @koa/router route.
 *
 * @module @faceverify/koa
 */

export { verificationWebhook } from './webhook/index.js';
export type { VerificationWebhookOptions } from './webhook/options.js';
export type { VerificationState, VerificationWebhookMiddleware } from './webhook/types.js';
