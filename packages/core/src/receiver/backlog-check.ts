import type { ReceiverContext } from './context.js';

/**
 * How long a record may stay due after a sweep before its backlog is an alarm. A sweep takes
 * what is due up to `sweepBatchSize`; what it leaves behind only grows old when sweeps take
 * less than becomes due, whatever their cadence (a timer, or a cron every few minutes).
 */
export const BACKLOG_ALARM_AGE_MS = 5 * 60_000;

/**
 * After a sweep: one indexed read of the due backlog (`store.dueSummary`). Work left due for
 * longer than `BACKLOG_ALARM_AGE_MS` counts toward the `backlog_growing` alarm, with its
 * figures as the detail. A store failure here is left to the next sweep, which reports it.
 */
export async function checkBacklog(context: ReceiverContext): Promise<void> {
  const now = context.now();
  let summary: Awaited<ReturnType<ReceiverContext['store']['dueSummary']>>;
  try {
    summary = await context.store.dueSummary({ now });
  } catch {
    return;
  }
  if (summary.oldestDueAt === undefined) return;
  const ageMs = now - summary.oldestDueAt;
  if (ageMs < BACKLOG_ALARM_AGE_MS) return;
  context.activity.record(
    'backlog_growing',
    `${summary.due} records are due, the oldest for ${Math.round(ageMs / 60_000)} minutes`,
  );
}
