import type { StoreAlarm } from '../store/store-alarm.js';
import type { ReceiverContext } from './context.js';

/** What reporting the store's alarms works with: the store, the log and the handlers. */
export type StoreAlarmContext = Pick<
  ReceiverContext,
  'store' | 'log' | 'handlers' | 'now' | 'activity'
>;

/**
 * Subscribes the Receiver to its store's alarms: each one is logged at error level (the
 * message says how to fix it), raised as an `alert` like the Receiver's own alarms, and
 * reaches the `error` handlers with `code` set, so an application's alerting sees a lost or
 * evicting store as it sees any other failure. Each is noted in the activity window, so
 * `health().recent` lists it for the window, and the Receiver's own alarm of the same code
 * (`token_key_missing`) is not raised again beside it.
 */
export function reportStoreAlarms(context: StoreAlarmContext): void {
  context.store.onAlarm((alarm: StoreAlarm) => reportStoreAlarm(context, alarm));
}

/** Reports one alarm about the store as {@link reportStoreAlarms} reports the store's own. */
export function reportStoreAlarm(
  context: Omit<StoreAlarmContext, 'store'>,
  alarm: StoreAlarm,
): void {
  context.log.error(alarm.message, { code: alarm.code });
  context.activity.noteRaised(alarm.code);
  context.handlers.raiseAlert({
    code: alarm.code,
    message: alarm.message,
    count: 1,
    raisedAt: new Date(context.now()),
  });
  context.handlers.reportError(alarm, { stage: 'store', code: alarm.code });
}
