export { verificationWebhook } from './webhook/index.js';
export type { VerificationWebhookOptions } from './webhook/options.js';
export type {
  VerificationEnv,
  VerificationVariables,
  VerificationWebhookMiddleware,
} from './webhook/types.js';
