#!/usr/bin/env node
// Regenerates BENCHMARKS.md and bench/results/ratios.svg from the results already in
// bench/results/*.json, without running any benchmark (`bench/run-all.mjs` does this last).
import { fileURLToPath } from 'node:url';
import { writeReport } from './lib/report.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { mdFile, svgFile } = writeReport(BENCH_DIR, ROOT);
console.log(`wrote ${mdFile.slice(ROOT.length)} and ${svgFile.slice(ROOT.length)}`);
