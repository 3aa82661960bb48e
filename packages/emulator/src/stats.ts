import type { SessionStatus } from './sessions/session-record.js';

/** What happened to webhooks since the emulator started. */
export interface WebhookStats {
  /** `verification.completed` events produced, one per completed session. */
  events: number;
  /** HTTP requests made to the callback URL; a duplicated webhook counts twice. */
  sent: number;
  /** Requests the receiver answered with a 2xx status. */
  delivered: number;
  /** Requests refused, unanswered within the timeout, or answered with a non-2xx status. */
  failed: number;
  /** Events not sent because of the drop fault. */
  dropped: number;
  delayed: number;
  duplicated: number;
  /** Events sent with a signature that does not match the body. */
  corrupted: number;
  /** Events not sent because no callback URL was set. */
  skipped: number;
}

/** Counts since the emulator started, and sessions by their state now. */
export interface EmulatorStats {
  sessions: Record<SessionStatus, number>;
  webhooks: WebhookStats;
  /** Session polls answered with an injected failure instead of the session. */
  pollFaults: { serverErrors: number; rateLimited: number };
  /** Requests refused by the rate limits. */
  rateLimited: { verify: number; complete: number };
}

/** The counting part of the stats, updated as things happen. */
export type Counters = Omit<EmulatorStats, 'sessions'>;

export function createCounters(): Counters {
  return {
    webhooks: {
      events: 0,
      sent: 0,
      delivered: 0,
      failed: 0,
      dropped: 0,
      delayed: 0,
      duplicated: 0,
      corrupted: 0,
      skipped: 0,
    },
    pollFaults: { serverErrors: 0, rateLimited: 0 },
    rateLimited: { verify: 0, complete: 0 },
  };
}

/** A copy of the counters with the session counts of now; later events do not change it. */
export function snapshotStats(
  counters: Counters,
  sessions: Record<SessionStatus, number>,
): EmulatorStats {
  return {
    sessions,
    webhooks: { ...counters.webhooks },
    pollFaults: { ...counters.pollFaults },
    rateLimited: { ...counters.rateLimited },
  };
}
