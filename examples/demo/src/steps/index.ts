import { hostedPageStep } from './hosted-page-step.js';
import { lostWebhookStep } from './lost-webhook-step.js';
import { rateLimitStep } from './rate-limit-step.js';
import { signedWebhookStep } from './signed-webhook-step.js';
import type { Step } from './step.js';
import { tamperedWebhookStep } from './tampered-webhook-step.js';

/** The demo's scenes, in order: step 2 reads the session step 1 completed. */
export const STEPS: readonly Step[] = [
  hostedPageStep,
  signedWebhookStep,
  tamperedWebhookStep,
  lostWebhookStep,
  rateLimitStep,
];
