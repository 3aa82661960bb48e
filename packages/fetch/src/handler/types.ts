import type { WithReceiver } from '@faceverify/core/adapter';

/**
 * The optional second argument of the handler: the platform's execution context. Its
 * `waitUntil` keeps handlers alive that still run when the webhook is acknowledged
 * (Cloudflare Workers' `ctx`; Next.js `after`; Vercel's and Netlify's `context`).
 * Anything else a framework passes there (Next.js `{ params }`) is ignored.
 */
export interface PlatformContext {
  waitUntil?(promise: Promise<unknown>): void;
}

/**
 * The Fetch handler `verificationWebhook()` returns, with its Receiver and a chainable
 * `.on()` that registers handlers on it.
 *
 * @example
 * export const POST = verificationWebhook().on('verification.completed', async ({ data }) => {
 *   await users.markVerified(data.external_user_id, data.status === 'verified');
 * });
 */
export type VerificationWebhookHandler = WithReceiver<
  (request: Request, context?: PlatformContext) => Promise<Response>
>;
