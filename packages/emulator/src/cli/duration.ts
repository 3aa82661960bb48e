import { CliUsageError } from './cli-usage-error.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Reads a duration: a number of milliseconds, or a number with a unit `ms`, `s`, `m` or `h`
 * (`500`, `2s`, `1.5m`, `15m`). The result is a whole number of milliseconds, at least 1.
 */
export function parseDuration(text: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  const amount = match ? Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1) : Number.NaN;
  const ms = Math.round(amount);
  if (!Number.isSafeInteger(ms) || ms < 1) {
    throw new CliUsageError(`${flag} must be a duration such as 500ms, 30s or 15m, not "${text}".`);
  }
  return ms;
}
