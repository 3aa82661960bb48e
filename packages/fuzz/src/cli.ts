// `pnpm fuzz`: the large run. Fuzzes every adapter, prints counts per answer and per
// category, writes bench/results/fuzz.json, and exits non-zero on any violation.
//
// usage: pnpm fuzz [--requests=20000] [--seed=N] [--adapters=express,koa,hono]
//                  [--concurrency=16] [--only=INDEX] [--no-write]
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatReport } from './report.js';
import { describeCase, runFuzz } from './run.js';
import { ADAPTERS, type AdapterName } from './servers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEFAULT_SEED = 20_251_122;

function commit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '20000' },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      adapters: { type: 'string', default: ADAPTERS.join(',') },
      concurrency: { type: 'string', default: '16' },
      only: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const adapters = values.adapters.split(',').map((name) => {
    if (!(ADAPTERS as readonly string[]).includes(name)) throw new Error(`unknown adapter ${name}`);
    return name as AdapterName;
  });
  const seed = Number(values.seed);
  const only = values.only === undefined ? undefined : Number(values.only);
  if (only !== undefined) {
    const fuzz = describeCase(seed, only);
    console.log(`case ${only} (seed ${seed}): ${fuzz.category}, ${fuzz.note}`);
    fuzz.steps.forEach((step, i) => {
      const bytes = Buffer.concat(step.send.pieces.map((piece) => Buffer.from(piece)));
      console.log(
        `  request ${i + 1}: ${bytes.length} bytes in ${step.send.pieces.length} piece(s), then ${step.send.end}; allowed: ${step.allowed.join(', ')}`,
      );
      console.log(`  ${JSON.stringify(bytes.subarray(0, 400).toString('latin1'))}`);
    });
  }
  const requests = Number(values.requests);
  console.log(
    `fuzzing ${adapters.join(', ')} with ${only === undefined ? requests.toLocaleString('en-US') : 1} case(s) each, seed ${seed}`,
  );
  const started = Date.now();
  const report = await runFuzz({
    seed,
    requests,
    adapters,
    concurrency: Number(values.concurrency),
    ...(only === undefined ? {} : { only }),
    onProgress: (adapter, done, total) => {
      if (done % 5000 === 0)
        console.log(
          `  ${adapter}: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`,
        );
    },
  });
  console.log(`\n${formatReport(report)}`);
  console.log(`\n${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (!values['no-write'] && only === undefined) {
    const dir = join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'fuzz.json');
    const data = {
      benchmark: 'fuzz',
      date: new Date().toISOString(),
      commit: commit(),
      node: process.version,
      ...report,
      adapters: report.adapters.map((adapter) => ({
        ...adapter,
        violations: adapter.violations.slice(0, 50),
      })),
    };
    writeFileSync(`${file}.tmp`, `${JSON.stringify(data, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
    console.log(`results: ${file.slice(ROOT.length)}`);
  }
  return report.ok ? 0 : 1;
}

process.exitCode = await main();
