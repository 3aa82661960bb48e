/** The delay at `attempt` (0-based) of a schedule whose last delay repeats. */
export function delayAt(scheduleMs: readonly number[], attempt: number): number {
  return scheduleMs[Math.min(attempt, scheduleMs.length - 1)]!;
}
