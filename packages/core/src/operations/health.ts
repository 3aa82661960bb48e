import type { StoreBacklog, TrackedState } from '../store/store.js';
import type { ActivityWindow } from './activity-window.js';
import type { AlarmCode, Alarms } from './alarms.js';

/** What `receiver.health()` reports: a snapshot a health endpoint can serve as JSON. */
export interface ReceiverHealth {
  /** The account this health is of (`health({ account })` on a Receiver of several accounts). */
  account?: string;
  /**
   * Whether this instance can serve webhooks now: its store answered. What a load balancer
   * or readiness probe asks; alarms never change it, so no request (from the service or
   * anyone else) takes an instance out of rotation. Answer `503` when it is `false`.
   */
  ready: boolean;
  /**
   * `failing`: results cannot arrive as they should (the store is down, every webhook is
   * refused); `degraded`: they arrive, late or with help (by polling, after retries); `ok`.
   * What an operator is told, with `reasons`: a fault of the setup is `failing` on every
   * instance alike, and taking them out of rotation fixes nothing (see `ready`).
   */
  status: 'ok' | 'degraded' | 'failing';
  /** The alarms whose situation is happening now: why the status is not `ok`. */
  reasons: AlarmCode[];
  checkedAt: string;
  /** The window the counts cover, in ms (15 minutes). */
  windowMs: number;
  store: {
    reachable: boolean;
    /**
     * Records by state now, when the store answered.
     */
    records?: Record<TrackedState, number>;
    /**
     * Work due now and not yet taken, when the store answered. A `due` count that keeps
     * growing, or an `oldestDueAgeMs` far above `sweepIntervalMs`, means sweeps do not keep
     * up (or do not run: call `receiver.start()` or `sweep()` from a cron trigger).
     */
    backlog?: StoreBacklog;
  };
  webhooks: {
    lastAcceptedAt: string | null;
    accepted: number;
    rejected: {
      signature_missing: number;
      signature_invalid: number;
      payload_invalid: number;
      raw_body_unavailable: number;
      store_unavailable: number;
    };
  };
  deliveries: {
    byWebhook: number;
    /**
     * Results recovered by polling (the Tracker or `confirm()`).
     */
    byPoll: number;
    handlerFailures: number;
    undeliverable: number;
  };
}

/** Builds the health snapshot from the activity window, the alarms and the store's counts. */
export async function readHealth(
  activity: ActivityWindow,
  alarms: Alarms,
  readStore: () => Promise<{ records: Record<TrackedState, number>; backlog: StoreBacklog }>,
  now: number,
): Promise<ReceiverHealth> {
  let store: ReceiverHealth['store'];
  try {
    store = { reachable: true, ...(await readStore()) };
  } catch {
    store = { reachable: false };
  }
  const active = alarms.active();
  const reasons = active.map(({ rule }) => rule.code);
  const failing = !store.reachable || active.some(({ rule }) => rule.severity === 'failing');
  const lastAccepted = activity.lastAt('webhook_accepted');
  return {
    ready: store.reachable,
    status: failing ? 'failing' : active.length > 0 ? 'degraded' : 'ok',
    reasons:
      store.reachable || reasons.includes('store_unavailable')
        ? reasons
        : [...reasons, 'store_unavailable'],
    checkedAt: new Date(now).toISOString(),
    windowMs: activity.windowMs,
    store,
    webhooks: {
      lastAcceptedAt: lastAccepted === undefined ? null : new Date(lastAccepted).toISOString(),
      accepted: activity.count('webhook_accepted'),
      rejected: {
        signature_missing: activity.count('signature_missing'),
        signature_invalid: activity.count('signature_invalid'),
        payload_invalid: activity.count('payload_invalid'),
        raw_body_unavailable:
          activity.count('raw_body_unavailable') +
          activity.count('raw_body_unverified') +
          activity.count('raw_body_unkept') +
          activity.count('raw_body_unsigned'),
        store_unavailable: activity.count('store_unavailable'),
      },
    },
    deliveries: {
      byWebhook: activity.count('delivered_by_webhook'),
      byPoll: activity.count('delivered_by_poll'),
      handlerFailures: activity.count('handler_failed'),
      undeliverable: activity.count('undeliverable'),
    },
  };
}
