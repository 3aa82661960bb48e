import { FaceverifyError } from '../errors.js';

/**
 * What a store can raise an alarm about:
 * - `store_reset`: data the store held is gone (a restart without persistence, a flush, keys
 *   evicted under memory pressure). Results it tracked may arrive again as untracked
 *   webhooks, and sessions it was polling for are no longer polled.
 * - `store_eviction_risk`: the store's server may drop keys on its own (an eviction policy
 *   other than `noeviction`, or one the store could not read); nothing is lost yet.
 * - `store_rewound`: the store went back in time (a failover to a replica that had not yet
 *   received the last writes): successes it acknowledged may be gone, so their results may be
 *   delivered again (see "Who may run twice" in docs/polling-and-stores.md).
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
