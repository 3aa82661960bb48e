import type { FaultSchedule } from '../faults/fault-settings.js';
import { CliUsageError } from './cli-usage-error.js';

/** Reads a fault flag's WHEN: `always`, a probability from 0 to 1, or `next:N`. */
export function parseFaultTrigger(text: string, flag: string): FaultSchedule {
  const value = text.trim();
  if (value === 'always') return { probability: 1 };
  const next = /^next:(\d+)$/.exec(value);
  if (next) return { next: Number(next[1]) };
  if (/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value)) return { probability: Number(value) };
  throw new CliUsageError(
    `${flag} takes "always", a probability from 0 to 1 (such as 0.2), or next:N, not "${text}".`,
  );
}
