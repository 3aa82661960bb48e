import { ConfigurationError } from '../errors.js';
import type { Receiver } from '../receiver/create-receiver.js';
import type { ReceiverEventMap, ReceiverEventName } from '../receiver/events.js';
import type { ReceiverOptions } from '../receiver/options.js';
import { toReceiver } from './to-receiver.js';

/** Where adapters listen when mounted app-wide and given no `path`. */
export const DEFAULT_WEBHOOK_PATH = '/webhooks/verification';

/** The options every adapter's `verificationWebhook()` shares. */
export interface WebhookMiddlewareOptions {
  path?: string;
  passThrough?: boolean;
}

/** What an adapter's middleware works with, options resolved and checked. */
export interface WebhookMiddlewareSetup {
  receiver: Receiver;
  path: string;
  passThrough: boolean;
}

/**
 * Resolves the arguments of an adapter's `verificationWebhook()`: the Receiver (given,
 * built from options, or from the environment) and a checked `path`. Configuration errors
 * surface here, when the app starts. For adapter authors.
 */
export function setUpWebhookMiddleware(
  receiverOrOptions: Receiver | ReceiverOptions | undefined,
  options: WebhookMiddlewareOptions,
): WebhookMiddlewareSetup {
  const receiver = toReceiver(receiverOrOptions);
  const path = options.path ?? DEFAULT_WEBHOOK_PATH;
  if (!path.startsWith('/')) {
    throw new ConfigurationError(
      `verificationWebhook(): "path" must start with "/", got ${JSON.stringify(path)}.`,
    );
  }
  return { receiver, path, passThrough: options.passThrough === true };
}

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

/** Gives a middleware function its `.receiver` and chainable `.on()`. For adapter authors. */
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
