export { verificationWebhook } from './plugin/index.js';
export type { VerificationWebhookOptions } from './plugin/options.js';
export type { VerificationWebhookHandle } from './plugin/types.js';
