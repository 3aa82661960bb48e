import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { atDepth } from '@faceverify/test-support';
import { expect, it } from 'vitest';
import { runPostgresSoak } from './soak/run-postgres-soak.js';

// CI runs 150 sessions, `pnpm test:deep` 1,000; FACEVERIFY_SOAK_SESSIONS runs more.
const sessions = Number(
  process.env.FACEVERIFY_SOAK_SESSIONS ?? atDepth({ standard: 150, deep: 1_000 }),
);
const ratePerSecond = Number(process.env.FACEVERIFY_SOAK_RATE ?? 100);

it(`soak on PostgreSQL: ${sessions} sessions under faults, a receiver killed and PostgreSQL restarted: every users row written exactly once`, {
  timeout: Math.max(15 * 60_000, sessions * 60),
}, async () => {
  expect(
    existsSync(fileURLToPath(new URL('../../postgres/dist/index.js', import.meta.url))),
    'run `pnpm build` first: receiver processes use dist/',
  ).toBe(true);
  const report = await runPostgresSoak({ sessions, ratePerSecond });
  console.log(JSON.stringify(report, null, 2));
  expect(report.started).toBe(sessions);
  // Every receiver the soak did not kill is alive at the end: none died on a fault.
  expect(report.crashed).toEqual([]);
  // Transactional handlers: exactly once, with no exception for the killed process.
  expect(report.lost).toBe(0);
  expect(report.writtenTwice).toBe(0);
  expect(report.writtenOnce).toBe(sessions);
  expect(report.emulator.webhooks.dropped).toBeGreaterThan(0);
  expect(report.bySource.poll).toBeGreaterThan(0);
  expect(report.bySource.webhook).toBeGreaterThan(0);
});
