import type {
  ReceiverEventMap,
  ReceiverEventName,
  VerificationCompletedEvent,
} from '../delivery/events.js';
import type { HandlerOptions } from '../delivery/handler-registry.js';
import type { Receiver } from '../receiver/create-receiver.js';

/**
 * A framework middleware that also carries its Receiver and a chainable `on`. The store's
 * transaction type is not known here (the Receiver may be built from options): a
 * transactional handler gets it as `unknown`, or register it on a Receiver of your own.
 */
export type WithReceiver<Middleware> = Middleware & {
  /**
   * The Receiver that checks and delivers the webhooks. One built from options or the
   * environment is built when this is first read (or when the first webhook arrives), and
   * reading it throws the `ConfigurationError` while the configuration is missing.
   */
  readonly receiver: Receiver;
  /**
   * Registers a handler, with the arguments of `receiver.on`; returns the middleware, so it
   * chains. Before the Receiver is built, the handler waits and is registered with it.
   *
   * @example
   * app.use(
   *   verificationWebhook().on('verification.completed', async ({ data }) => {
   *     await users.markVerified(data.external_user_id, data.status === 'verified');
   *   }),
   * );
   */
  on(
    name: 'verification.completed',
    handler: (
      event: VerificationCompletedEvent,
      context: { transaction: unknown },
    ) => void | Promise<void>,
    options: HandlerOptions & { transactional: true },
  ): WithReceiver<Middleware>;
  on<Name extends ReceiverEventName>(
    name: Name,
    handler: ReceiverEventMap[Name],
    options?: Name extends 'verification.completed' ? HandlerOptions : never,
  ): WithReceiver<Middleware>;
};

/** Where `withReceiver` finds the Receiver: the adapter's `WebhookPipeline`. */
export interface ReceiverHolder {
  readonly receiver: Receiver;
  on(
    name: ReceiverEventName,
    handler: (...args: never[]) => unknown,
    options?: HandlerOptions,
  ): void;
}

/**
 * Gives a middleware function its `.receiver` and chainable `.on()`, both from the
 * pipeline (which builds its Receiver on first use); `webhookMiddleware` calls it.
 */
export function withReceiver<Middleware extends object>(
  middleware: Middleware,
  holder: ReceiverHolder,
): WithReceiver<Middleware> {
  const result = Object.defineProperties(middleware, {
    receiver: { get: () => holder.receiver, enumerable: true },
    on: {
      value(
        name: ReceiverEventName,
        handler: (...args: never[]) => unknown,
        options?: HandlerOptions,
      ) {
        holder.on(name, handler, options);
        return result;
      },
      enumerable: true,
    },
  }) as WithReceiver<Middleware>;
  return result;
}
