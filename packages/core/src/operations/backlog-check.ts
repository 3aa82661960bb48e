import type { Store } from '../store/store.js';
import type { ActivityWindow } from './activity-window.js';
import { counted, inflected } from './counted.js';

/** What judging the backlog reads and records. */
export interface BacklogContext {
  store: Pick<Store, 'dueSummary'>;
  activity: ActivityWindow;
  now(): number;
  sweepIntervalMs: number;
}

/** The shortest wait of due work that is an alarm: polls are minutes apart at most. */
const BACKLOG_ALARM_FLOOR_MS = 60_000;

/**
 * How long a record may stay due before its backlog is an alarm: a minute, or three sweep
 * intervals when sweeps are rarer. Judged after each sweep, and every half minute while
 * `start()` sweeps (a long sweep, or one stuck, is then no reason to wait): a sweep takes
 * what is due up to `sweepBatchSize`, so what it leaves behind only grows old when sweeps
 * take less than becomes due, or do not run.
 */
export function backlogAlarmAgeMs(context: Pick<BacklogContext, 'sweepIntervalMs'>): number {
  return Math.max(BACKLOG_ALARM_FLOOR_MS, 3 * context.sweepIntervalMs);
}

/** How often `start()` judges the backlog besides after each sweep. */
export const BACKLOG_CHECK_EVERY_MS = 30_000;

/**
 * One indexed read of the due backlog (`store.dueSummary`). Work due for longer than
 * `backlogAlarmAgeMs` counts toward the `backlog_growing` alarm, with its figures as the
 * detail. A store failure here is left to the next sweep, which reports it.
 */
export async function checkBacklog(context: BacklogContext): Promise<void> {
  const now = context.now();
  let summary: Awaited<ReturnType<Store['dueSummary']>>;
  try {
    summary = await context.store.dueSummary({ now });
  } catch {
    return;
  }
  if (summary.oldestDueAt === undefined) return;
  const ageMs = now - summary.oldestDueAt;
  if (ageMs < backlogAlarmAgeMs(context)) return;
  const age =
    ageMs >= 120_000 ? `${Math.round(ageMs / 60_000)} minutes` : `${Math.round(ageMs / 1000)} s`;
  context.activity.record(
    'backlog_growing',
    `${counted(summary.due, 'record')} ${inflected(summary.due, 'is', 'are')} due, the oldest for ${age}`,
  );
}
