/**
 * Hono middleware for signed face verification webhooks on Node, Bun, Deno and Cloudflare Workers.
 *
 * @module @faceverify/hono
 */

export { verificationWebhook } from './webhook/index.js';
export type { VerificationWebhookOptions } from './webhook/options.js';
export type {
  VerificationEnv,
  VerificationVariables,
  VerificationWebhookMiddleware,
} from './webhook/types.js';
