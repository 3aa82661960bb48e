import { describe, expect, it } from 'vitest';
import { REGRESSIONS } from '../src/regressions.js';
import { simulate } from '../src/simulate.js';

// Seeds CI runs on every change; `pnpm simulate --seeds N --from S` runs more.
const CI_SEEDS = Number(process.env.FACEVERIFY_SIMULATION_SEEDS ?? 40);

/** A report that says what broke and how to replay it, as the assertion's message. */
function explain(report: Awaited<ReturnType<typeof simulate>>): string {
  return [
    ...report.violations,
    `replay: pnpm simulate --seed ${report.seed} --trace`,
    ...report.schedule,
    ...report.trace,
  ].join('\n');
}

describe('the whole system, simulated from a seed', () => {
  it(`keeps every promise on ${CI_SEEDS} seeds`, async () => {
    for (let seed = 1; seed <= CI_SEEDS; seed++) {
      const report = await simulate(seed);
      expect(report.violations, explain(report)).toEqual([]);
      // A run that delivered nothing would prove nothing.
      if (report.stats.sessions > 0) expect(report.stats.delivered).toBeGreaterThan(0);
    }
  });

  it('replays a seed exactly: the same seed gives the same run', async () => {
    const [first, second] = [await simulate(294), await simulate(294)];
    expect(second.trace).toEqual(first.trace);
    expect(first.trace.length).toBeGreaterThan(50);
  });

  for (const [name, schedule] of Object.entries(REGRESSIONS)) {
    it(`replays a case found before: ${name}`, async () => {
      const report = await simulate(0, schedule);
      expect(report.violations, explain(report)).toEqual([]);
      expect(report.stats.delivered).toBeGreaterThan(0);
    });
  }
});
