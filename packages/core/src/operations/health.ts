import type { Clock } from '../base/clock/clock.js';
import type { StoreBacklog, TrackedState } from '../store/store.js';
import type { ActivityWindow } from './activity-window.js';
import type { AlarmCode, Alarms } from './alarms.js';
import type { SlowStoreCalls } from './slow-store-calls.js';

/**
 * Alarms about the store's state, judged now by `health()`'s own read of the store (it failed,
 * or took `storeSlowMs`) and the store calls still waiting past `storeSlowMs`, not by the window: a store that recovered is no reason now, and one
 * that fails now is, whatever the window counted. Raised within the window, they are `recent`.
 */
const JUDGED_BY_THE_READ: ReadonlySet<AlarmCode> = new Set(['store_unavailable', 'store_slow']);

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
  /**
   * What is wrong now: why the status is not `ok`. The store's state (`store_unavailable`,
   * `store_slow`) and the clock (`clock_skew`) as they are at this call; patterns of traffic
   * (`secret_mismatch`, `webhooks_missing`, `handler_failing`, …) on the evidence of the window.
   */
  reasons: AlarmCode[];
  /**
   * What went wrong recently: every alarm raised within the window, the most recent last,
   * whether or not it is still wrong now (then it is in `reasons` too). A store that was slow
   * for a minute, a `store_reset`, a `token_key_missing`: each stays here for the window.
   */
  recent: AlarmCode[];
  /** Which clock leases and due times follow, and this process's offset from the store's. */
  clock: {
    /**
     * `store`: the store's (`storeClock`), so instances whose clocks disagree never both hold a
     * lease; `process`: this process's own (a store without a clock, a test clock, or
     * `storeClock: false`), unwatched for skew.
     */
    leases: 'store' | 'process';
    /**
     * The store's clock minus this process's, in ms, at the last reading (every 30 s); `null`
     * when leases follow the process's clock or no reading succeeded yet.
     */
    offsetMs: number | null;
  };
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
    /**
     * Of those, verified with a secret other than the first listed, and when the last was
     * (`null`: none in the window). A rotation of the signing secret is finished once this
     * stays 0 for a session lifetime after the service signs with the new one: the old secret
     * can then be removed (docs/security.md, Rotation).
     */
    olderSecret: number;
    olderSecretLastAt: string | null;
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

/** What the health snapshot is read from. */
export interface HealthSources {
  activity: ActivityWindow;
  alarms: Alarms;
  readStore: () => Promise<{ records: Record<TrackedState, number>; backlog: StoreBacklog }>;
  /** The clock the store read is timed on (the Receiver's). */
  clock: Clock;
  /** `now` on the clock leases follow. */
  now: number;
  /** A store read that takes this long is `store_slow` now. */
  storeSlowMs: number;
  /** Store calls past `storeSlowMs` still waiting: while there is one, `store_slow` now. */
  slowCalls: Pick<SlowStoreCalls, 'stillWaiting'>;
  /** The store's clock minus this process's at the last reading; `undefined` when not followed. */
  clockOffsetMs: (() => number | undefined) | undefined;
  maxClockSkewMs: number;
}

/**
 * Builds the health snapshot: what is wrong now (`reasons`, from the store read here, the
 * clock's last reading and the window's patterns) and what went wrong recently (`recent`).
 */
export async function readHealth(sources: HealthSources): Promise<ReceiverHealth> {
  const { activity, clock, now } = sources;
  let store: ReceiverHealth['store'];
  const readAt = clock.now();
  try {
    store = { reachable: true, ...(await sources.readStore()) };
  } catch {
    store = { reachable: false };
  }
  const slow = clock.now() - readAt >= sources.storeSlowMs || sources.slowCalls.stillWaiting > 0;
  const offsetMs = sources.clockOffsetMs?.();
  const skewed = offsetMs !== undefined && Math.abs(offsetMs) > sources.maxClockSkewMs;
  const active = sources.alarms
    .active()
    .filter(({ rule }) => !JUDGED_BY_THE_READ.has(rule.code))
    .map(({ rule }) => ({ code: rule.code, severity: rule.severity }));
  if (!store.reachable) active.push({ code: 'store_unavailable', severity: 'failing' });
  else if (slow) active.push({ code: 'store_slow', severity: 'degraded' });
  if (skewed) active.push({ code: 'clock_skew', severity: 'degraded' });
  const failing = active.some(({ severity }) => severity === 'failing');
  const lastAccepted = activity.lastAt('webhook_accepted');
  const lastOlder =
    activity.count('older_secret') > 0 ? activity.lastAt('older_secret') : undefined;
  return {
    ready: store.reachable,
    status: failing ? 'failing' : active.length > 0 ? 'degraded' : 'ok',
    reasons: active.map(({ code }) => code),
    recent: activity.raisedRecently() as AlarmCode[],
    clock: {
      leases: sources.clockOffsetMs ? 'store' : 'process',
      offsetMs: offsetMs ?? null,
    },
    checkedAt: new Date(now).toISOString(),
    windowMs: activity.windowMs,
    store,
    webhooks: {
      lastAcceptedAt: lastAccepted === undefined ? null : new Date(lastAccepted).toISOString(),
      accepted: activity.count('webhook_accepted'),
      olderSecret: activity.count('older_secret'),
      olderSecretLastAt: lastOlder === undefined ? null : new Date(lastOlder).toISOString(),
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
