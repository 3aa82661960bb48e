import type { FixedDelayTimers } from '../clock/fixed-delay-timers.js';
import type { DeliveryContext } from '../delivery/delivery-context.js';
import type { LabeledSecret } from '../signature/secrets.js';

/** What answering a webhook works with besides delivery's: its secrets and its deadlines. */
export interface WebhookContext extends DeliveryContext {
  secrets: LabeledSecret[];
  maxBodyBytes: number;
  ackAfterMs: number;
  /** Acknowledgement deadlines (`ackAfterMs`) of the requests in flight, on one clock timer. */
  ackTimers: FixedDelayTimers;
  confirmWebhooks: boolean;
  untrackedWebhooks: 'ignore' | 'deliver';
}
