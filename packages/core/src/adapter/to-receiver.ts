import { createReceiver, type Receiver } from '../receiver/create-receiver.js';
import type { ReceiverOptions } from '../receiver/options.js';

function isReceiver(value: Receiver | ReceiverOptions | undefined): value is Receiver {
  const candidate = value as Partial<Receiver> | undefined;
  return typeof candidate?.receive === 'function' && typeof candidate.on === 'function';
}

/**
 * The Receiver an adapter uses: the one given, or one built from options, or from the
 * environment (`FACEVERIFY_WEBHOOK_SECRET`, ...) when there are none. Missing
 * configuration throws a `ConfigurationError` here, when the app starts, never as a 401
 * later. For adapter authors.
 */
export function toReceiver(receiverOrOptions?: Receiver | ReceiverOptions): Receiver {
  return isReceiver(receiverOrOptions) ? receiverOrOptions : createReceiver(receiverOrOptions);
}
