#!/usr/bin/env node
// Builds the packages a pnpm filter selects, printing nothing unless the build fails: then
// its output without the progress lines of builds that went well, so the error stands out. `pnpm demo` and `pnpm pack:all` use it
// so that their own output is not buried under build logs; so does `pnpm test`.
//
// usage: node scripts/quiet-build.mjs <pnpm filter>...
import { spawn } from 'node:child_process';

const filters = process.argv.slice(2);
if (filters.length === 0) {
  console.error('usage: node scripts/quiet-build.mjs <pnpm filter>...');
  process.exit(2);
}
// tsup's and pnpm's progress lines ("core build: ESM dist/index.js 69 KB", "build: Done").
const PROGRESS = /^\S+ build(\$ .*|: (CLI|ESM|CJS|DTS) .*|: Done)$/;

const args = [...filters.flatMap((filter) => ['--filter', filter]), 'run', 'build'];
const child = spawn('pnpm', args, { stdio: ['ignore', 'pipe', 'pipe'] });
const output = [];
child.stdout.on('data', (chunk) => output.push(chunk));
child.stderr.on('data', (chunk) => output.push(chunk));
child.on('error', (error) => {
  console.error(`Could not run pnpm: ${error.message}`);
  process.exit(1);
});
child.on('close', (code) => {
  if (code === 0) return;
  const lines = Buffer.concat(output).toString('utf8').split('\n');
  const kept = lines.filter((line) => !PROGRESS.test(line) || /error/i.test(line));
  process.stderr.write(kept.join('\n'));
  console.error(`\nThe build failed (pnpm ${args.join(' ')}, exit code ${code}).`);
  process.exit(code ?? 1);
});
