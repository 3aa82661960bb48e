export * from './errors.js';
export { parseVerificationPayload, validateVerificationPayload } from './payload/parse.js';
export type { VerificationPayload, VerificationStatus } from './payload/types.js';
export type { LabeledSecret, WebhookSecrets } from './signature/secrets.js';
export { matchSignature, type SecretMatch, sign, verify } from './signature/verify.js';
