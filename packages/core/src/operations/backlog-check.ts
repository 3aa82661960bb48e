import type { Store } from '../store/store.js';
import type { ActivityWindow } from './activity-window.js';
import { counted, inflected } from './counted.js';
import type { SweepProgress, WhyWaiting } from './sweep-progress.js';

/** What judging the backlog reads and records. */
export interface BacklogContext {
  store: Pick<Store, 'dueSummary'>;
  activity: ActivityWindow;
  now(): number;
  sweepIntervalMs: number;
}

/** Alarms by which the store says it lost what it had acknowledged. */
const STORE_LOSSES = ['store_reset', 'store_rewound'] as const;

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
 * `backlogAlarmAgeMs` counts toward the `backlog_growing` alarm, with its figures and why it
 * waits (`sweeps`) as the detail, which names the fix: more throughput only when sweeps ran to
 * their end meanwhile and left it. A store failure here is left to the next sweep, which
 * reports it.
 */
export async function checkBacklog(context: BacklogContext, sweeps: SweepProgress): Promise<void> {
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
  const figures = `${counted(summary.due, 'record')} ${inflected(summary.due, 'is', 'are')} due, the oldest for ${duration(ageMs)}`;
  // A store that lost writes since the latest sweep began may have lost that sweep's leases.
  const lostAt = Math.max(
    ...STORE_LOSSES.map((code) => context.activity.lastRaisedAt(code) ?? -Infinity),
  );
  const why = sweeps.whyWaiting(summary.oldestDueAt, now, lostAt);
  context.activity.record('backlog_growing', `${figures}, ${whyAndFix(why, context)}`);
}

const duration = (ms: number) =>
  ms >= 120_000 ? `${Math.round(ms / 60_000)} minutes` : `${Math.round(ms / 1000)} s`;

/** What each reason a backlog waits says, with its fix. */
function whyAndFix(why: WhyWaiting, context: Pick<BacklogContext, 'sweepIntervalMs'>): string {
  switch (why.kind) {
    case 'behind':
      return 'though sweeps ran to their end meanwhile: sweeps do not keep up. Raise sweepBatchSize or sweepConcurrency, sweep more often or from more instances, and check receiver.health().store.backlog.';
    case 'held':
      return `while one sweep has run for ${duration(why.forMs)}: verification.completed handlers run inside it, so a handler that takes minutes (or hangs) holds it, as do polls waiting out the service's rate limit (see api_failing). Find the handler that runs long (its errors and spans: stage 'handler'), and bound its work.`;
    case 'lost':
      return 'after the store lost writes it had acknowledged (store_reset or store_rewound): work sweeps had taken is due again. That alarm says what to fix; the sweeps take it now.';
    case 'failing':
      return "while sweeps failed: the store did not answer them. Check the store's connection (the Redis or PostgreSQL URL, the pool, the server).";
    case 'idle':
      return `and no sweep ran since: sweeps do not run. Call receiver.start() in a long-lived process, or receiver.sweep() from a cron trigger (every ${duration(context.sweepIntervalMs)} or so).`;
  }
}
