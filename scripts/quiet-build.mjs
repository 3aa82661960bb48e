#!/usr/bin/env node
// Builds the packages a pnpm filter selects, printing one line as it starts and one per
// package built (a first build takes up to two minutes: silence would look like a hang),
// and the build's own output only when it fails: then without the progress lines of builds
// that went well, so the error stands out. `pnpm demo` and `pnpm pack:all` use it so that
// their own output is not buried under build logs; so does `pnpm test`.
//
// usage: node scripts/quiet-build.mjs <pnpm filter>...
import { spawn } from 'node:child_process';

const filters = process.argv.slice(2);
if (filters.length === 0) {
  console.error('usage: node scripts/quiet-build.mjs <pnpm filter>...');
  process.exit(2);
}
// tsdown's and pnpm's progress lines ("core build: ℹ entry: src/index.ts", "build: ✔ Build
// complete in 2025ms", "build: Done"), and tsdown's notice about the Node.js version.
const PROGRESS = /^\S+ build(\$ .*|: [ℹ✔] .*|: \[tsdown\] Node\.js .*|: Done)$/;
// pnpm's line when one package's build has finished: "packages/core build: Done".
const PACKAGE_DONE = /^(\S+) build: Done$/;
const started = performance.now();
const seconds = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;

const args = [...filters.flatMap((filter) => ['--filter', filter]), 'run', 'build'];
console.log(`Building ${filters.join(' ')} (the first build takes up to two minutes)…`);
const child = spawn('pnpm', args, { stdio: ['ignore', 'pipe', 'pipe'] });
const output = [];
let partial = '';
child.stdout.on('data', (chunk) => {
  output.push(chunk);
  const lines = (partial + chunk.toString('utf8')).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) {
    const done = PACKAGE_DONE.exec(line.trim());
    if (done) console.log(`  built ${done[1]} (${seconds()})`);
  }
});
child.stderr.on('data', (chunk) => output.push(chunk));
child.on('error', (error) => {
  console.error(`Could not run pnpm: ${error.message}`);
  process.exit(1);
});
child.on('close', (code) => {
  if (code === 0) {
    console.log(`Built in ${seconds()}.\n`);
    return;
  }
  const lines = Buffer.concat(output).toString('utf8').split('\n');
  const kept = lines.filter((line) => !PROGRESS.test(line) || /error/i.test(line));
  process.stderr.write(kept.join('\n'));
  console.error(`\nThe build failed (pnpm ${args.join(' ')}, exit code ${code}).`);
  process.exit(code ?? 1);
});
