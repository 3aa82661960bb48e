import { redactUrl } from '../base/logging/logger.js';
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

/** The handlers of one event as a run takes them, computed when one is added or removed. */
interface HandlerList {
  /** Every handler, with its options, in registration order (`on`, `off`). */
  readonly all: Map<AnyHandler, HandlerOptions>;
  /** Those run outside a transaction, in order: every one, except transactional completions. */
  plain: AnyHandler[];
  /** `verification.completed` handlers that run in the store's transaction, in order. */
  transactional: AnyHandler[];
}

/**
 * Typed handler lists. Handlers of one event run in registration order, one after another;
 * transactional ones run last, inside the store's transaction. What a delivery asks of the
 * lists (how many, whether any is transactional, which to run) is worked out when a handler
 * is added or removed, not at each delivery.
 */
export class HandlerRegistry {
  private readonly lists = new Map<ReceiverEventName, HandlerList>(
    (
      [
        'verification.completed',
        'verification.expired',
        'verification.undeliverable',
        'verification.superseded',
        'error',
        'alert',
      ] as const
    ).map((name) => [name, { all: new Map(), plain: [], transactional: [] }]),
  );

  on(name: ReceiverEventName, handler: AnyHandler, options: HandlerOptions = {}): void {
    const list = this.listOf(name);
    list.all.set(handler, options);
    this.split(name, list);
  }

  off(name: ReceiverEventName, handler: AnyHandler): void {
    const list = this.listOf(name);
    if (list.all.delete(handler)) this.split(name, list);
  }

  count(name: ReceiverEventName): number {
    return this.listOf(name).all.size;
  }

  /** True when some `verification.completed` handler must run in the store's transaction. */
  hasTransactional(): boolean {
    return this.listOf('verification.completed').transactional.length > 0;
  }

  /**
   * Runs every handler of `name` (for `verification.completed`, the non-transactional ones
   * only, or with `transaction` given, the transactional ones only). The first one that
   * throws stops the run and is thrown (or rejected) again. Returns nothing when every
   * handler returned nothing to wait for: a synchronous handler costs no promise.
   */
  run<Name extends Exclude<ReceiverEventName, 'error' | 'alert'>>(
    name: Name,
    event: Parameters<ReceiverEventMap[Name]>[0],
    transaction?: { value: unknown },
  ): undefined | Promise<void> {
    const list = this.listOf(name);
    // The arrays are replaced, never changed, when handlers are added: a handler that
    // registers another does not run it now.
    const handlers = transaction ? list.transactional : list.plain;
    const context = { transaction: transaction?.value };
    for (let index = 0; index < handlers.length; index++) {
      const returned = (handlers[index] as (event: unknown, context: unknown) => unknown)(
        event,
        context,
      );
      if (isThenable(returned)) return this.runRest(handlers, index, returned, event, context);
    }
    return undefined;
  }

  /** The rest of `run` once handler `index` returned something to wait for. */
  private async runRest(
    handlers: readonly AnyHandler[],
    index: number,
    waiting: PromiseLike<unknown>,
    event: unknown,
    context: unknown,
  ): Promise<void> {
    await waiting;
    for (let next = index + 1; next < handlers.length; next++) {
      const returned = (handlers[next] as (event: unknown, context: unknown) => unknown)(
        event,
        context,
      );
      if (isThenable(returned)) await returned;
    }
  }

  private split(name: ReceiverEventName, list: HandlerList): void {
    const byTransaction = name === 'verification.completed';
    const entries = [...list.all];
    list.plain = entries
      .filter(([, options]) => !(byTransaction && options.transactional))
      .map(([handler]) => handler);
    list.transactional = byTransaction
      ? entries.filter(([, options]) => options.transactional).map(([handler]) => handler)
      : [];
  }

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
    for (const handler of this.listOf('error').plain) {
      try {
        (handler as ReceiverEventMap['error'])(error, reported);
      } catch {
        // An error handler's own failure has nowhere better to go.
      }
    }
  }

  /** Calls the `alert` handlers; one that throws does not keep the others from it. */
  raiseAlert(alert: ReceiverAlert): void {
    for (const handler of this.listOf('alert').plain) {
      try {
        (handler as ReceiverEventMap['alert'])(alert);
      } catch {
        // An alert handler's own failure has nowhere better to go.
      }
    }
  }

  private listOf(name: ReceiverEventName): HandlerList {
    const list = this.lists.get(name);
    if (!list) throw new TypeError(`Unknown receiver event "${String(name)}".`);
    return list;
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
