/**
 * A Fetch-standard handler for signed face verification webhooks: Next.js App Router, Bun, Deno,
 * Cloudflare Workers, Remix, SvelteKit, Astro.
 *
 * @module @faceverify/fetch
 */

export { verificationWebhook } from './handler/index.js';
export type { VerificationWebhookOptions } from './handler/options.js';
export type { PlatformContext, VerificationWebhookHandler } from './handler/types.js';
