#!/usr/bin/env node
// `pnpm test`: what the tests need, then every Vitest project. Installing Redis, PostgreSQL,
// PgBouncer and Chromium (on a new machine, mostly waiting on downloads) and Node 22 with
// Miniflare runs beside the build (mostly CPU), so a new machine waits for the longer of the
// two, not for both. The build is skipped when every package's dist/ is newer than its
// sources (CI builds in a step of its own). Arguments go to Vitest: `pnpm test packages/redis`.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stalePackages } from './vitest-fresh-build.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Runs one command with its output shown; resolves its exit code. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit' });
    child.on('error', (error) => {
      console.error(`Could not run ${command}: ${error.message}`);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const node = (script, ...args) => run(process.execPath, [`scripts/${script}`, ...args]);

const [deps, build] = await Promise.all([
  node('ensure-system-deps.mjs').then((code) => (code === 0 ? node('ensure-miniflare.mjs') : code)),
  stalePackages().length > 0 ? node('quiet-build.mjs', './packages/**') : 0,
]);
if (deps !== 0 || build !== 0) process.exit(1);
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
process.exit(
  await run(process.execPath, [
    vitest,
    'run',
    '--config',
    'vitest.workspace.ts',
    ...process.argv.slice(2),
  ]),
);
