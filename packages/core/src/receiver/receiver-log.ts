import type { Log } from '../logging/logger.js';

// Not part of the Receiver interface: only the adapter pipeline, inside this package,
// logs through a Receiver's logger (a mount-order hint, once).
const RECEIVER_LOG = Symbol('faceverify.receiverLog');

/** Gives a Receiver object its logger, hidden from its public shape. */
export function attachReceiverLog(receiver: object, log: Log): void {
  Object.defineProperty(receiver, RECEIVER_LOG, { value: log });
}

/** The logger of a Receiver built by `createReceiver`, if it is one. */
export function receiverLog(receiver: object): Log | undefined {
  return (receiver as Record<symbol, Log | undefined>)[RECEIVER_LOG];
}
