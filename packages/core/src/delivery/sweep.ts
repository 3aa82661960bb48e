import type { DeliveryContext } from './delivery-context.js';
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
}

function tally(report: SweepReport, outcome: PollOutcome['outcome']): void {
  if (outcome === 'delivered') report.delivered += 1;
  else if (outcome === 'failed') report.failed += 1;
  else if (outcome === 'pending') report.pending += 1;
  else if (outcome === 'expired') report.expired += 1;
  else if (outcome === 'retry-later') report.retryLater += 1;
  else if (outcome === 'left') report.left += 1;
}

/**
 * Leases the sessions that are due and works on them with bounded concurrency: overdue
 * webhooks are polled for, failed deliveries retried, lifetimes ended. Safe to run from
 * several processes at once: each session is leased by one of them.
 */
export async function sweep(context: SweepContext): Promise<SweepReport> {
  await context.clockReady();
  const owner = context.newOwner();
  const due = await context.store.leaseDue({
    now: context.now(),
    limit: context.sweepBatchSize,
    owner,
    leaseMs: context.leaseMs,
  });
  const report: SweepReport = {
    leased: due.length,
    delivered: 0,
    failed: 0,
    pending: 0,
    expired: 0,
    retryLater: 0,
    left: 0,
  };
  let next = 0;
  const worker = async () => {
    while (next < due.length) {
      const session = due[next++]!;
      try {
        tally(report, (await pollLeased(context, session, owner)).outcome);
      } catch (error) {
        report.failed += 1;
        context.handlers.reportError(error, { stage: 'store', ...tokenIdOf(session.key) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(context.sweepConcurrency, due.length) }, worker));
  return report;
}
