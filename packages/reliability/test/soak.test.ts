import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { atDepth } from '@faceverify/test-support';
import { expect, it } from 'vitest';
import { runSoak } from './soak/run-soak.js';

// CI runs 150 sessions, `pnpm test:deep` 1,000; `pnpm soak` runs 10,000 and writes the report.
const sessions = Number(
  process.env.FACEVERIFY_SOAK_SESSIONS ?? atDepth({ standard: 150, deep: 1_000 }),
);
const ratePerSecond = Number(process.env.FACEVERIFY_SOAK_RATE ?? 100);
const reportFile = process.env.FACEVERIFY_SOAK_REPORT;

// The documented guarantee (docs/polling-and-stores.md): no result is lost; a result is
// handled once after its success was recorded; only a handler that was running in the
// receiver that was killed, before its success was recorded, may run once more.
it(`soak: ${sessions} sessions under faults, a receiver killed and Redis restarted: 0 lost, repeats only from the killed receiver`, {
  timeout: Math.max(15 * 60_000, sessions * 60),
}, async () => {
  expect(
    existsSync(fileURLToPath(new URL('../../redis/dist/index.js', import.meta.url))),
    'run `pnpm build` first: receiver processes use dist/',
  ).toBe(true);
  const report = await runSoak({ sessions, ratePerSecond });
  console.log(JSON.stringify(report, null, 2));
  if (reportFile) {
    mkdirSync(dirname(reportFile), { recursive: true });
    writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
  }
  expect(report.started).toBe(sessions);
  // Every receiver the soak did not kill is alive at the end: none died on a fault.
  expect(report.crashed).toEqual([]);
  expect(report.lost).toBe(0);
  expect(report.deliveredMoreThanTwice).toBe(0);
  expect(report.deliveredOnce + report.deliveredTwice).toBe(sessions);
  expect(report.repeatedAfterKill).toBe(report.deliveredTwice);
  expect(report.emulator.webhooks.dropped).toBeGreaterThan(0);
  expect(report.latencyMs.poll.count).toBeGreaterThan(0);
});
