import type { ReceiverEventMap, ReceiverEventName } from './events.js';

type Handlers = { [Name in ReceiverEventName]: Set<ReceiverEventMap[Name]> };

/** Typed handler sets. Handlers of one event run in registration order, one after another. */
export class HandlerRegistry {
  private readonly handlers: Handlers = {
    'verification.completed': new Set(),
    'verification.expired': new Set(),
    error: new Set(),
  };

  on<Name extends ReceiverEventName>(name: Name, handler: ReceiverEventMap[Name]): void {
    this.setFor(name).add(handler);
  }

  off<Name extends ReceiverEventName>(name: Name, handler: ReceiverEventMap[Name]): void {
    this.setFor(name).delete(handler);
  }

  count(name: ReceiverEventName): number {
    return this.handlers[name].size;
  }

  /** Runs every handler; the first one that throws stops the run and is rethrown. */
  async run<Name extends 'verification.completed' | 'verification.expired'>(
    name: Name,
    event: Parameters<ReceiverEventMap[Name]>[0],
  ): Promise<void> {
    for (const handler of [...this.handlers[name]]) {
      await (handler as (event: Parameters<ReceiverEventMap[Name]>[0]) => unknown)(event);
    }
  }

  /** Reports to `error` handlers; a throwing error handler must not break delivery. */
  reportError(...args: Parameters<ReceiverEventMap['error']>): void {
    for (const handler of this.handlers.error) {
      try {
        handler(...args);
      } catch {
        // An error handler's own failure has nowhere better to go.
      }
    }
  }

  private setFor<Name extends ReceiverEventName>(name: Name): Set<ReceiverEventMap[Name]> {
    const set = this.handlers[name];
    if (!set) throw new TypeError(`Unknown receiver event "${String(name)}".`);
    return set as Set<ReceiverEventMap[Name]>;
  }
}
