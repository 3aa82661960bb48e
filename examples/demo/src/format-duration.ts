/** Milliseconds as seconds with one decimal, the unit every duration in the demo is shown in. */
export function formatDuration(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
