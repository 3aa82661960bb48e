#!/usr/bin/env node
// `pnpm test:deep`: what CI leaves out to stay within minutes, run before every release
// (docs/releasing.md). Each step prints its time; the exit code is non-zero when one fails.
//   1. `pnpm test` with FACEVERIFY_TEST_DEPTH=deep: the tests that search or load run at full
//      size (`atDepth` in @faceverify/test-support): the crash test on PostgreSQL drives 1,000
//      sessions through at least 20 SIGKILLs (CI: 120 sessions, at least 6), and so on; and
//      the files named `*.deep.test.ts`, which CI leaves out (vitest.project.ts): a real
//      Redis Sentinel failover.
//   2. Every project on Node 24 (CI: the projects that touch Node's HTTP, streams, crypto and
//      the drivers).
//   3. `pnpm test` at CI's size with libuv's thread pool one thread wide and held before every
//      test (FACEVERIFY_TEST_BUSY_POOL, scripts/vitest-busy-thread-pool.mjs), as on a busy
//      machine: a test that only passes while thread-pool work ends quickly fails here.
//   4. Each package's and example's own tsc program (CI: four programs over all of them).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const deep = { ...process.env, FACEVERIFY_TEST_DEPTH: 'deep' };
const busyPool = { ...process.env, UV_THREADPOOL_SIZE: '1', FACEVERIFY_TEST_BUSY_POOL: '1' };
/** @type {Array<[string, string[], NodeJS.ProcessEnv]>} */
const steps = [
  ['pnpm', ['test'], deep],
  [process.execPath, ['scripts/test-node24.mjs', '--all'], deep],
  ['pnpm', ['test'], busyPool],
  ['pnpm', ['typecheck:each'], deep],
];
const times = [];
let failed = false;
for (const [command, args, env] of steps) {
  const label = [
    ...(env.FACEVERIFY_TEST_BUSY_POOL ? ['FACEVERIFY_TEST_BUSY_POOL=1'] : []),
    command === process.execPath ? 'node' : command,
    ...args,
  ].join(' ');
  const started = Date.now();
  console.log(`::: ${label}`);
  const { status } = spawnSync(command, args, { cwd: ROOT, env, stdio: 'inherit' });
  const seconds = Math.round((Date.now() - started) / 1000);
  times.push(`${label}: ${seconds} s${status === 0 ? '' : ' (FAILED)'}`);
  failed ||= status !== 0;
}
console.log(`\ntest:deep\n  ${times.join('\n  ')}`);
process.exitCode = failed ? 1 : 0;
