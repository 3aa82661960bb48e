/**
 * Fastify 5 plugin for signed face verification webhooks.
 *
 * @module @faceverify/fastify
 */

export { verificationWebhook } from './plugin/index.js';
export type { VerificationWebhookOptions } from './plugin/options.js';
export type { VerificationWebhookHandle } from './plugin/types.js';
