import { RateLimitError } from '../base/errors.js';
import type { DeliveryContext } from './delivery-context.js';
import { FairShare } from './fair-share.js';
import { type PollContext, type PollOutcome, pollLeased } from './poll-session.js';
import { tokenIdOf } from './token-id.js';

/** What a sweep works with: polls', and its batch, its workers, its clock's first reading. */
export type SweepContext = PollContext &
  Pick<DeliveryContext, 'clockReady' | 'newOwner' | 'sweepBatchSize' | 'sweepConcurrency'>;

/** What one sweep did, by outcome. */
export interface SweepReport {
  leased: number;
  delivered: number;
  failed: number;
  pending: number;
  expired: number;
  retryLater: number;
  /** Sessions left to an instance that lists the key their token is sealed under. */
  left: number;
  /**
   * Results settled without the handlers: their user had started a newer session
   * (`supersededResults: 'skip'`).
   */
  superseded: number;
}

// Batches a sweep leases at most, one after another, while the service's rate limits turn
// their sessions away (see `sweep`).
const MAX_BATCHES_PER_SWEEP = 20;

function tally(report: SweepReport, outcome: PollOutcome['outcome']): void {
  if (outcome === 'delivered') report.delivered += 1;
  else if (outcome === 'failed') report.failed += 1;
  else if (outcome === 'pending') report.pending += 1;
  else if (outcome === 'expired') report.expired += 1;
  else if (outcome === 'retry-later') report.retryLater += 1;
  else if (outcome === 'left') report.left += 1;
  else if (outcome === 'superseded') report.superseded += 1;
}

/**
 * Leases the sessions that are due and works on them with bounded concurrency: overdue
 * webhooks are polled for, failed deliveries retried, lifetimes ended. Safe to run from
 * several processes at once: each session is leased by one of them.
 */
export async function sweep(context: SweepContext): Promise<SweepReport> {
  await context.clockReady();
  const report: SweepReport = {
    leased: 0,
    delivered: 0,
    failed: 0,
    pending: 0,
    expired: 0,
    retryLater: 0,
    left: 0,
    superseded: 0,
  };
  // A sweep works at most `sweepBatchSize` sessions. Those the service's rate limit turned
  // away (one account's key at its limit, among several) cost no service call and do not
  // count: the sessions behind them, other accounts' among them, are leased now rather than
  // a sweep interval per batch later.
  let worked = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_SWEEP; batch++) {
    const { leased, rateLimited } = await sweepBatch(context, report);
    worked += leased - rateLimited;
    if (leased < context.sweepBatchSize || worked >= context.sweepBatchSize) break;
  }
  return report;
}

/** Leases one batch of due sessions and works on it, fairly across accounts. */
async function sweepBatch(
  context: SweepContext,
  report: SweepReport,
): Promise<{ leased: number; rateLimited: number }> {
  const owner = context.newOwner();
  const due = await context.store.leaseDue({
    now: context.now(),
    limit: context.sweepBatchSize,
    owner,
    leaseMs: context.leaseMs,
  });
  report.leased += due.length;
  let rateLimited = 0;
  const workers = Math.min(context.sweepConcurrency, due.length);
  const share = new FairShare(due, workers);
  const worker = async () => {
    for (let session = await share.take(); session; session = await share.take()) {
      try {
        const polled = await pollLeased(context, session, owner);
        tally(report, polled.outcome);
        if (polled.error instanceof RateLimitError) rateLimited += 1;
      } catch (error) {
        report.failed += 1;
        context.handlers.reportError(error, { stage: 'store', ...tokenIdOf(session.key) });
      } finally {
        share.done(session);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { leased: due.length, rateLimited };
}
