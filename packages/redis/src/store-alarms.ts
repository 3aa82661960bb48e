import { StoreAlarm, type StoreAlarmCode, type StoreAlarmListener } from '@faceverify/core/store';

/**
 * The listeners of one store's alarms. With none subscribed (a store used without a
 * Receiver), an alarm still goes to the console at error level: losing data must never be
 * silent.
 */
export class StoreAlarms {
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
