import type { Receiver } from '../receiver/create-receiver.js';
import type { ReceiverEventMap, ReceiverEventName } from '../receiver/events.js';

/** A framework middleware that also carries its Receiver and a chainable `on`. */
export type WithReceiver<Middleware> = Middleware & {
  /** The Receiver that checks and delivers the webhooks. */
  readonly receiver: Receiver;
  /** Registers a handler on the Receiver; returns the middleware, so it chains. */
  on<Name extends ReceiverEventName>(
    name: Name,
    handler: ReceiverEventMap[Name],
  ): WithReceiver<Middleware>;
};

/**
 * Gives a middleware function its `.receiver` and chainable `.on()`. For adapter authors.
 *
 * @example
 * const middleware = withReceiver((req, res, next) => pipeline.handle(exchange), receiver);
 */
export function withReceiver<Middleware extends object>(
  middleware: Middleware,
  receiver: Receiver,
): WithReceiver<Middleware> {
  const result = Object.assign(middleware, {
    receiver,
    on<Name extends ReceiverEventName>(name: Name, handler: ReceiverEventMap[Name]) {
      receiver.on(name, handler);
      return result;
    },
  }) as WithReceiver<Middleware>;
  return result;
}
