import { FaceverifyError, type StoreAlarmCode } from '../base/errors.js';

export type { StoreAlarmCode } from '../base/errors.js';

/**
 * A store found that it can no longer vouch for what it holds, or that it may soon not.
 * Stores hand it to the listeners of `Store.onAlarm`; the Receiver logs it at error level
 * and reports it to its `error` handlers with `context.code` set to `code`. The message says
 * what happened and how to fix it, and carries no credential.
 */
export class StoreAlarm extends FaceverifyError {
  declare readonly code: StoreAlarmCode;

  constructor(code: StoreAlarmCode, message: string) {
    super(code, message);
  }
}

/** A listener of `Store.onAlarm`. */
export type StoreAlarmListener = (alarm: StoreAlarm) => void;

/**
 * The listeners of one store's alarms, for store implementations: `subscribe` backs
 * `Store.onAlarm`, `raise` tells every listener. With none subscribed (a store used without a
 * Receiver), an alarm goes to the console at error level: losing data must never be silent.
 * A listener that throws does not stop the others, nor the store operation that raised it.
 */
export class StoreAlarmListeners {
  private readonly listeners = new Set<StoreAlarmListener>();

  subscribe(listener: StoreAlarmListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  raise(code: StoreAlarmCode, message: string): void {
    const alarm = new StoreAlarm(code, message);
    if (this.listeners.size === 0) {
      console.error('[faceverify]', message, { code });
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(alarm);
      } catch {
        // A listener's own failure must not turn the alarm into a failed store operation.
      }
    }
  }
}
