import type { ReceiverTelemetry } from '../telemetry/receiver-telemetry.js';
import type { HeadersLike } from './headers.js';

/**
 * What the adapter pipeline, inside this package, reaches of a Receiver besides its public
 * shape: where a body a parser consumed first is reported (it counts toward the
 * `raw_body_unavailable` alarm, which logs the adapter's mount-order hint, when the service
 * sent it), and its telemetry (a body refused before the Receiver saw it is still a webhook
 * answered).
 */
export interface ReceiverInternals {
  /** Counts a body refused as `raw_body_unavailable`, by what shows who sent it. */
  rawBodyRefused(headers: HeadersLike, read: { hint: string; kept?: Uint8Array }): Promise<void>;
  telemetry: ReceiverTelemetry | undefined;
}

const INTERNALS = Symbol('faceverify.receiverInternals');

/** Gives a Receiver object its internals, hidden from its public shape. */
export function attachReceiverInternals(receiver: object, internals: ReceiverInternals): void {
  Object.defineProperty(receiver, INTERNALS, { value: internals });
}

/** The internals of a Receiver built by `createReceiver`, if it is one. */
export function receiverInternals(receiver: object): ReceiverInternals | undefined {
  return (receiver as Record<symbol, ReceiverInternals | undefined>)[INTERNALS];
}
