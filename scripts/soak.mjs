#!/usr/bin/env node
// `pnpm soak`: the full soak run (10,000 sessions by default; `--sessions N`, `--rate N`),
// the same code as the shortened CI test. Writes bench/results/soak.json and
// docs/soak-report.md.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '10000' },
    rate: { type: 'string', default: '100' },
  },
});
const reportFile = `${root}bench/results/soak.json`;
const run = spawnSync(
  'pnpm',
  [
    'exec',
    'vitest',
    'run',
    '--config',
    'vitest.workspace.ts',
    '--project',
    'reliability',
    'test/soak.test.ts',
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      FACEVERIFY_SOAK_SESSIONS: values.sessions,
      FACEVERIFY_SOAK_RATE: values.rate,
      FACEVERIFY_SOAK_REPORT: reportFile,
    },
  },
);
const report = JSON.parse(readFileSync(reportFile, 'utf8'));
const w = report.emulator.webhooks;
const markdown = `# Soak report

\`pnpm soak\`: the local emulator and three receiver processes (Express + RedisStore) behind a
round-robin balancer, on one real Redis (\`appendonly yes\`), all on loopback. Sessions were
started and completed at a steady ${report.ratePerSecond}/s while the emulator dropped 20% of
webhooks, duplicated 5%, corrupt-signed 2%, delayed 10% by 500 ms, and failed 5% of polls with
5xx and 5% with 429 (plus a storm of 200 consecutive 429s); one receiver was killed with SIGKILL
and restarted, and Redis was restarted once.

| | |
|---|---|
| Sessions started | ${report.started} |
| Completed at the service | ${report.completed} |
| Delivered once | ${report.deliveredOnce} |
| Delivered twice | ${report.deliveredTwice} |
| Lost | ${report.lost} |
| Completion → delivery, webhook (p50 / p99) | ${report.latencyMs.webhook.p50} ms / ${report.latencyMs.webhook.p99} ms (${report.latencyMs.webhook.count} sessions) |
| Completion → delivery, poll (p50 / p99) | ${report.latencyMs.poll.p50} ms / ${report.latencyMs.poll.p99} ms (${report.latencyMs.poll.count} sessions) |
| Peak RSS per receiver process, the killed one last (MiB) | ${report.peakRssMiB.join(', ')} |
| Webhooks: events / sent / dropped / duplicated / corrupted / delayed / failed | ${w.events} / ${w.sent} / ${w.dropped} / ${w.duplicated} / ${w.corrupted} / ${w.delayed} / ${w.failed} |
| Poll faults: 5xx / 429 | ${report.emulator.pollFaults.serverErrors} / ${report.emulator.pollFaults.rateLimited} |
| Duration | ${(report.durationMs / 1000).toFixed(1)} s |

Poll latency follows the soak's poll schedule (first poll 1 s after the session starts, then 1 s,
2 s); production defaults poll after 1, 1, 2 and 5 minutes.

Timeline:

${report.events.map((event) => `- ${event}`).join('\n')}

Raw figures: \`bench/results/soak.json\`.
`;
writeFileSync(`${root}docs/soak-report.md`, markdown);
console.log(`\nReport: docs/soak-report.md`);
process.exit(run.status ?? 1);
