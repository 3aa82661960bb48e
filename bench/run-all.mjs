#!/usr/bin/env node
// Runs every bench/*.bench.mjs one after another (never in parallel: they would compete for
// the CPU and skew each other), lists the results each one wrote to bench/results/, and
// writes BENCHMARKS.md and bench/results/ratios.svg from them.
//
// usage: node bench/run-all.mjs [--quick] [other options, passed to every benchmark]
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { table } from './harness.mjs';
import { writeReport } from './lib/report.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SUFFIX = '.bench.mjs';

function run(file, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, join(BENCH_DIR, file), ...args], {
      stdio: 'inherit',
    });
    child.on('error', (error) => resolve({ code: null, error: error.message }));
    child.on('exit', (code, signal) =>
      resolve({ code, error: signal ? `killed by ${signal}` : undefined }),
    );
  });
}

/**
 * The results a run produced: `bench/results/<name>.json` for each benchmark, when written
 * after `since` (an older file is a previous run's, not this one's).
 */
export function collectResults(names, since) {
  return names.map((name) => {
    const file = join(BENCH_DIR, 'results', `${name}.json`);
    const fresh = existsSync(file) && statSync(file).mtimeMs >= since;
    return { name, file, data: fresh ? JSON.parse(readFileSync(file, 'utf8')) : null };
  });
}

async function main() {
  const args = process.argv.slice(2);
  const files = readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith(SUFFIX))
    .sort();
  if (files.length === 0) {
    console.error(`No bench/*${SUFFIX} files found.`);
    return 1;
  }
  const started = Date.now();
  const runs = [];
  for (const file of files) {
    console.log(`\n=== ${file}\n`);
    const begin = Date.now();
    const result = await run(file, args);
    runs.push({ file, name: file.slice(0, -SUFFIX.length), ...result, ms: Date.now() - begin });
  }

  const collected = collectResults(
    runs.map((r) => r.name),
    started,
  );
  console.log(
    `\n${table(
      ['benchmark', 'status', 'seconds', 'results'],
      runs.map((r, i) => [
        r.file,
        r.code === 0 ? 'ok' : `failed (${r.error ?? `exit ${r.code}`})`,
        (r.ms / 1000).toFixed(1),
        collected[i].data ? `bench/results/${r.name}.json` : '(none written)',
      ]),
    )}`,
  );
  const { mdFile, svgFile } = writeReport(BENCH_DIR, ROOT);
  console.log(`\nreport: ${mdFile.slice(ROOT.length)}, ${svgFile.slice(ROOT.length)}`);
  // A benchmark that crashed is an error; a slow result is not (benchmarks are not tests).
  return runs.every((r) => r.code === 0) ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main();
}
