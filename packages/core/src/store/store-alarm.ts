import { FaceverifyError } from '../errors.js';

/**
 * What a store can raise an alarm about:
 * - `store_reset`: data the store held is gone (a restart without persistence, a flush, keys
 *   evicted under memory pressure). Results it tracked may arrive again as untracked
 *   webhooks, and sessions it was polling for are no longer polled.
 * - `store_eviction_risk`: the store's server may drop keys on its own (an eviction policy
 *   other than `noeviction`, or one the store could not read); nothing is lost yet.
 * - `store_rewound`: the store went back in time: a failover to a replica that was behind
 *   lost writes the old primary had acknowledged (recorded successes among them, so their
 *   results are handled again). Where a store can only tell that a failover happened and
 *   that acknowledged writes may have been lost, the message says exactly that.
 * - `store_unreplicated`: a write the store was asked to make durable on replicas (e.g.
 *   `RedisStore`'s `waitForReplicas`) was acknowledged by fewer replicas than asked within
 *   the timeout: it is recorded on the primary only, and a failover now could lose it.
 * - `token_key_missing`: a session's token is sealed under keys this instance does not list;
 *   the session is left to an instance that does (raised by the Receiver's token protection).
 * - `clock_skew`: this process's clock and the store's disagree by more than `maxClockSkewMs`;
 *   leases and due times follow the store's clock, so nothing runs twice, but the process's
 *   clock needs fixing (raised by the Receiver).
 */
export type StoreAlarmCode =
  | 'store_reset'
  | 'store_eviction_risk'
  | 'store_rewound'
  | 'store_unreplicated'
  | 'token_key_missing'
  | 'clock_skew';

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
