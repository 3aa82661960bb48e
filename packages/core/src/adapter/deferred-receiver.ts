import { systemClock } from '../base/clock/clock.js';
import { ConfigurationError } from '../base/errors.js';
import { createLog } from '../base/logging/logger.js';
import type { ReceiverEventName } from '../delivery/events.js';
import type { HandlerOptions } from '../delivery/handler-registry.js';
import type { ReceiverTelemetry } from '../operations/telemetry/receiver-telemetry.js';
import { createReceiver, type Receiver } from '../receiver/create-receiver.js';
import type { ReceiverOptions } from '../receiver/options.js';
import { decided, type ReceiverResponse } from '../receiver/webhook/answers.js';
import { type AnswerContext, writeAnswer } from '../receiver/webhook/write-answer.js';

/** A handler of any Receiver event, as the deferred Receiver queues it. */
export type AnyHandler = (...args: never[]) => unknown;

/**
 * The Receiver of an adapter, resolved on first use. Adapters are built at module level
 * (a Next.js route module is imported by `next build`, a test imports the app) where the
 * environment may not hold the configuration yet; resolving on the first request keeps
 * that import safe, and the request still fails loudly with the fix.
 */
export interface DeferredReceiver {
  /**
   * The Receiver: the one given, or built now from the options (or the environment) with
   * every handler registered so far. Throws the `ConfigurationError` while the
   * configuration is missing; the next call tries again.
   */
  get(): Receiver;
  /** Whether `get()` has returned a Receiver. */
  isResolved(): boolean;
  /** `receiver.on(...)` now when the Receiver exists, else when it is built. */
  on(name: ReceiverEventName, handler: AnyHandler, options?: HandlerOptions): void;
  /**
   * The answer to a webhook while the Receiver cannot be built (`error`, thrown by `get()`):
   * `500 receiver_not_configured`, written by the one executor of the answer table, its log
   * line naming the fix on the log the options name (the console by default, even with
   * `logger: false`: nothing is received until it is fixed) and counted by their telemetry.
   */
  notConfigured(error: unknown): ReceiverResponse;
}

function isReceiver(value: Receiver | ReceiverOptions | undefined): value is Receiver {
  const candidate = value as Partial<Receiver> | undefined;
  return typeof candidate?.receive === 'function' && typeof candidate.on === 'function';
}

/**
 * Wraps the first argument of an adapter's `verificationWebhook()`: a Receiver is used as
 * is (and `on` reaches it at once, with its checks); options, or nothing, build one on the
 * first `get()`. The pipeline's; not exported.
 */
export function deferReceiver(receiverOrOptions?: Receiver | ReceiverOptions): DeferredReceiver {
  const options = isReceiver(receiverOrOptions) ? undefined : receiverOrOptions;
  const clock = options?.clock ?? systemClock;
  // No Receiver, so no activity to count toward; the log and telemetry its options name.
  const answering: AnswerContext = {
    log: createLog(options?.logger === false ? undefined : options?.logger),
    now: () => clock.now(),
    activity: undefined,
    telemetry: telemetryOf(options),
  };
  const notConfigured = (error: unknown): ReceiverResponse => {
    const detail =
      error instanceof ConfigurationError
        ? error.message
        : `The webhook Receiver could not be built: ${error instanceof Error ? error.message : String(error)}`;
    return writeAnswer(answering, decided({ outcome: 'not-configured', detail }));
  };
  if (isReceiver(receiverOrOptions)) {
    const receiver = receiverOrOptions;
    return {
      get: () => receiver,
      isResolved: () => true,
      on: (name, handler, options) => {
        receiver.on(name, handler as never, options as never);
      },
      notConfigured,
    };
  }
  let resolved: Receiver | undefined;
  const pending: Array<[ReceiverEventName, AnyHandler, HandlerOptions | undefined]> = [];
  return {
    get() {
      if (resolved) return resolved;
      const receiver = createReceiver(receiverOrOptions);
      for (const [name, handler, options] of pending) {
        receiver.on(name, handler as never, options as never);
      }
      pending.length = 0;
      resolved = receiver;
      return receiver;
    },
    isResolved: () => resolved !== undefined,
    on(name, handler, options) {
      if (resolved) resolved.on(name, handler as never, options as never);
      else pending.push([name, handler, options]);
    },
    notConfigured,
  };
}

/**
 * The options' telemetry, when it can count an answer: a Receiver that cannot be built may
 * have been refused for a telemetry missing its hooks.
 */
function telemetryOf(options: ReceiverOptions | undefined): ReceiverTelemetry | undefined {
  const telemetry = options?.telemetry;
  return typeof telemetry?.webhookAnswered === 'function' ? telemetry : undefined;
}
