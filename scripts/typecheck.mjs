#!/usr/bin/env node
// `pnpm typecheck`: every package, example and script in four tsc programs, two at a time (CI
// machines have two cores), instead of one program per folder. Each program prints its time;
// errors are printed as tsc wrote them. `pnpm typecheck:each` still checks folder by folder.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const PROGRAMS = [
  'tsconfig.typecheck.json',
  'tsconfig.typecheck-koa.json',
  'examples/nextjs/tsconfig.json',
  'tsconfig.tooling.json',
];
const PARALLEL = 2;

/** @param {string} project */
function check(project) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TSC, '--noEmit', '-p', project], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`${code === 0 ? 'ok    ' : 'FAILED'} ${project} (${seconds} s)`);
      if (output.trim()) console.log(output.trimEnd());
      resolve(code === 0);
    });
  });
}

const queue = [...PROGRAMS];
const results = await Promise.all(
  Array.from({ length: PARALLEL }, async () => {
    let passed = true;
    for (let project = queue.shift(); project; project = queue.shift()) {
      passed = (await check(project)) && passed;
    }
    return passed;
  }),
);
process.exitCode = results.every(Boolean) ? 0 : 1;
