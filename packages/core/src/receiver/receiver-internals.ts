import type { ReceiverTelemetry } from '../telemetry/receiver-telemetry.js';
import type { ActivityWindow } from './activity-window.js';

/**
 * What the adapter pipeline, inside this package, reaches of a Receiver besides its public
 * shape: its activity window (a refused body counts toward the `raw_body_unavailable` alarm,
 * which logs the adapter's mount-order hint), and its telemetry (a body refused before the
 * Receiver saw it is still a webhook answered).
 */
export interface ReceiverInternals {
  activity: ActivityWindow;
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
