import type { AccountDirectory } from '../accounts/account-directory.js';
import type { Clock } from '../base/clock/clock.js';
import type { FixedDelayTimers } from '../base/clock/fixed-delay-timers.js';
import type { Log } from '../base/logging/logger.js';
import type { Client } from '../client/index.js';
import type { ActivityWindow } from '../operations/activity-window.js';
import type { RefusedBodies } from '../operations/refused-bodies.js';
import type { ReceiverTelemetry } from '../operations/telemetry/receiver-telemetry.js';
import type { TokenProtectingStore } from '../store/sealed/token-protecting-store.js';
import type { HandlerRegistry } from './handler-registry.js';

/**
 * What delivering a result works with, whichever path found it (a webhook, a poll,
 * `confirm()`, the sweep): the store, the clock leases follow, the handlers, and the settings
 * of leases, retries and polls. The Receiver builds one; each part names the members it takes
 * (`Pick<DeliveryContext, ...>`, named per part: `LeaseContext`, `ExpireContext`,
 * `DeliverContext`, `PollContext`, `SweepContext`, `DisplacedContext`).
 */
export interface DeliveryContext {
  /** Every store, wrapped: tokens never reach it in clear (see TokenProtectingStore). */
  store: TokenProtectingStore;
  client: Client | undefined;
  /** The accounts of a Receiver of several: each session is asked about with its own client. */
  accounts: AccountDirectory | undefined;
  handlers: HandlerRegistry;
  log: Log;
  clock: Clock;
  /** The time leases and due times follow: the store's clock where `storeClock` is on. */
  now(): number;
  /**
   * Before the first work on the store's clock (`storeClock`): a promise of its first
   * reading, else `undefined`. Awaited only when it is a promise.
   */
  clockReady(): Promise<void> | undefined;
  /** A lease owner unique to one piece of work, so two tasks in one process never share a lease. */
  newOwner(): string;
  /** Lease renewals (every `leaseMs / 3`) of the work in flight, on one clock timer. */
  renewalTimers: FixedDelayTimers;
  /** What happened recently, for `health()` and the alarms. */
  activity: ActivityWindow;
  /** Users named by refused bodies: a result recovered by polling clears their evidence. */
  refusedBodies: RefusedBodies;
  telemetry: ReceiverTelemetry | undefined;
  /** Whether log lines and span attributes may carry a result's status (see the option). */
  includePersonalData: boolean;
  leaseMs: number;
  replayWindowMs: number;
  sessionLifetimeMs: number;
  pollScheduleMs: readonly number[];
  retryScheduleMs: readonly number[];
  maxDeliveryAttempts: number;
  /** A result of a user who started a newer session since: delivered, or skipped (the option). */
  supersededResults: 'deliver' | 'skip';
  maxOpenPerUser: number;
  sweepIntervalMs: number;
  sweepBatchSize: number;
  sweepConcurrency: number;
}
