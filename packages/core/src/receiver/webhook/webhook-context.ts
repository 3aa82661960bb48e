import type { AccountDirectory } from '../../accounts/account-directory.js';
import type { FixedDelayTimers } from '../../base/clock/fixed-delay-timers.js';
import type { DeliveryContext } from '../../delivery/delivery-context.js';
import type { LabeledSecret } from '../../wire/signature/secrets.js';

/**
 * What answering a webhook works with besides delivery's: its secrets and its deadlines. The
 * decision's steps that compose the others take all of it; the rest name what they take
 * (`RawBodyContext`, and `Pick`s in receive-webhook.ts).
 */
export interface WebhookContext extends DeliveryContext {
  /** The secrets of the Receiver, or of the request's account on a Receiver of several. */
  secrets: LabeledSecret[];
  /** The accounts of a Receiver of several (`accounts`): a request is decided in its own. */
  accounts: AccountDirectory | undefined;
  /** The account the request is decided for, once chosen (see `accountContext`). */
  account?: string;
  maxBodyBytes: number;
  ackAfterMs: number;
  /** Acknowledgement deadlines (`ackAfterMs`) of the requests in flight, on one clock timer. */
  ackTimers: FixedDelayTimers;
  confirmWebhooks: boolean;
  untrackedWebhooks: 'ignore' | 'deliver';
}
