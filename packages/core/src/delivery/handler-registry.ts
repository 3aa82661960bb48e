import { redactUrl } from '../logging/logger.js';
import type { ReceiverAlert } from '../operations/alarms.js';
import type {
  ReceiverErrorContext,
  ReceiverEventMap,
  ReceiverEventName,
  ReportedEvent,
  VerificationCompletedEvent,
  VerificationExpiredEvent,
} from './events.js';

// Handlers are stored without the store's transaction type: the Receiver's public `on`
// checks it, and the registry only passes the transaction through.
type AnyHandler = (...args: never[]) => unknown;

/** Options of `receiver.on('verification.completed', handler, options)`. */
export interface HandlerOptions {
  /**
   * Runs the handler inside the store's transaction, after the other handlers, and gives it
   * that transaction (`context.transaction`): its writes and the record of the delivery
   * commit together, so its effects happen once even across a crash. Needs a
   * transactional store (`PostgresStore`). Default `false`.
   */
  transactional?: boolean;
}

/**
 * Typed handler lists. Handlers of one event run in registration order, one after another;
 * transactional ones run last, inside the store's transaction.
 */
export class HandlerRegistry {
  private readonly handlers = new Map<ReceiverEventName, Map<AnyHandler, HandlerOptions>>([
    ['verification.completed', new Map()],
    ['verification.expired', new Map()],
    ['verification.undeliverable', new Map()],
    ['error', new Map()],
    ['alert', new Map()],
  ]);

  on(name: ReceiverEventName, handler: AnyHandler, options: HandlerOptions = {}): void {
    this.mapFor(name).set(handler, options);
  }

  off(name: ReceiverEventName, handler: AnyHandler): void {
    this.mapFor(name).delete(handler);
  }

  count(name: ReceiverEventName): number {
    return this.mapFor(name).size;
  }

  /** True when some `verification.completed` handler must run in the store's transaction. */
  hasTransactional(): boolean {
    for (const options of this.mapFor('verification.completed').values()) {
      if (options.transactional) return true;
    }
    return false;
  }

  /**
   * Runs every handler of `name` (for `verification.completed`, the non-transactional ones
   * only, or with `transaction` given, the transactional ones only). The first one that
   * throws stops the run and is rethrown.
   */
  async run<Name extends Exclude<ReceiverEventName, 'error' | 'alert'>>(
    name: Name,
    event: Parameters<ReceiverEventMap[Name]>[0],
    transaction?: { value: unknown },
  ): Promise<void> {
    // A snapshot, so a handler that registers another does not run it now.
    for (const [handler, options] of [...this.mapFor(name)]) {
      if (name === 'verification.completed' && Boolean(options.transactional) !== !!transaction) {
        continue;
      }
      const returned = (handler as (event: unknown, context: unknown) => unknown)(event, {
        transaction: transaction?.value,
      });
      // A handler that returns nothing to wait for costs no turn of the microtask queue.
      if (isThenable(returned)) await returned;
    }
  }

  /** Reports to `error` handlers; a throwing error handler must not break delivery. */
  /**
   * Calls the `error` handlers. An event in the context loses its credentials first: a
   * session token could complete a pending session, a signed image URL shows the face.
   */
  reportError(
    error: unknown,
    context: Omit<ReceiverErrorContext, 'event'> & {
      event?: VerificationCompletedEvent | VerificationExpiredEvent;
    },
  ): void {
    const reported: ReceiverErrorContext = context.event
      ? Object.assign({}, context, { event: withoutCredentials(context.event) })
      : (context as ReceiverErrorContext);
    for (const handler of this.mapFor('error').keys()) {
      try {
        (handler as ReceiverEventMap['error'])(error, reported);
      } catch {
        // An error handler's own failure has nowhere better to go.
      }
    }
  }

  /** Calls the `alert` handlers; one that throws does not keep the others from it. */
  raiseAlert(alert: ReceiverAlert): void {
    for (const handler of this.mapFor('alert').keys()) {
      try {
        (handler as ReceiverEventMap['alert'])(alert);
      } catch {
        // An alert handler's own failure has nowhere better to go.
      }
    }
  }

  private mapFor(name: ReceiverEventName): Map<AnyHandler, HandlerOptions> {
    const map = this.handlers.get(name);
    if (!map) throw new TypeError(`Unknown receiver event "${String(name)}".`);
    return map;
  }
}

function withoutCredentials(
  event: VerificationCompletedEvent | VerificationExpiredEvent,
): ReportedEvent {
  const { sessionToken: _token, ...rest } = event;
  if (rest.type !== 'verification.completed') return rest;
  return {
    ...rest,
    data: { ...rest.data, frontImageUrl: redactUrl(rest.data.frontImageUrl) as string },
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
