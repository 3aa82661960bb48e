export { verificationWebhook } from './webhook/index.js';
export type { VerificationWebhookOptions } from './webhook/options.js';
export type { VerificationState, VerificationWebhookMiddleware } from './webhook/types.js';
