export { verificationWebhook } from './handler/index.js';
export type { VerificationWebhookOptions } from './handler/options.js';
export type { PlatformContext, VerificationWebhookHandler } from './handler/types.js';
