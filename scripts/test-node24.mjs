#!/usr/bin/env node
// Runs Vitest again on Node 24, the release integrators run, from the npm registry (cached
// beside the other runtimes). Node 24 is first on PATH, so the processes the tests start
// (receivers, the emulator CLI, examples) run on it too.
//
// By default (CI) only the tests whose code meets what changes between Node releases: the
// HTTP server and streams (every adapter on Node's own server), fetch (the API client, the
// image download), node:crypto (signatures, sealing), TextDecoder (payloads), AbortSignal
// (body deadlines) and V8's heap (a rejection flood). The portable cases (the pipeline, the
// Receiver, the Fetch handler, Hono) run on Node 22 and 24 in `pnpm test:runtimes`; the rest
// of core is plain JavaScript over injected clocks and stores, and the stores' drivers are
// plain JavaScript over sockets. `--all` runs every project, as `pnpm test:deep` does before a
// release; other arguments go to Vitest.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binCandidates, ensureInstalled } from './runtimes/provision.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'faceverify-runtimes');

const node = await ensureInstalled({
  dir: join(CACHE_DIR, 'node24'),
  spec: 'node@24',
  candidates: (dir) => binCandidates(dir, 'node'),
});
console.log(`Node 24: ${node.versionOutput.split('\n')[0]}`);
// Path filters: Vitest runs the test files whose path contains one of them.
const NODE_SENSITIVE_TESTS = [
  'packages/express/test/',
  'packages/koa/test/',
  'packages/hono/test/',
  'packages/fastify/test/',
  'packages/fetch/test/',
  'packages/core/test/client/',
  'packages/core/test/image/fetch-front-image',
  'packages/core/test/wire/signature',
  'packages/core/test/testing/signed-delivery',
  'packages/core/test/store/token-protection',
  'packages/core/test/store/results-at-rest',
  'packages/core/test/wire/payload',
  'packages/core/test/adapter/pipeline',
  'packages/core/test/base/shared-abort-signal',
  'packages/core/test/receiver/rejection-flood-heap',
];
// Within those folders, what another tool decides: TypeScript (a project's configuration against
// the types), Deno (the Fetch handler's command) and Chromium (the integrator's flow in a browser).
const NOT_NODE_SENSITIVE = [
  '**/project-config.test.ts',
  '**/deno-command.test.ts',
  '**/*.browser.test.ts',
];
const all = process.argv.includes('--all');
const rest = process.argv.slice(2).filter((arg) => arg !== '--all');
const filters = all
  ? []
  : [...NODE_SENSITIVE_TESTS, ...NOT_NODE_SENSITIVE.flatMap((glob) => ['--exclude', glob])];
console.log(`Tests on Node 24: ${all ? 'all' : NODE_SENSITIVE_TESTS.join(', ')}`);
const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
// The files were listed by the run on the machine's Node: here dots, failures and the counts.
const report = '.vitest-report-node24.json';
const reporters = process.env.CI
  ? ['--reporter=dot', '--reporter=json', `--outputFile.json=${report}`]
  : [];
const args = [vitest, 'run', '--config', 'vitest.workspace.ts', ...reporters, ...filters, ...rest];
const env = {
  ...process.env,
  PATH: `${dirname(node.bin)}:${process.env.PATH ?? ''}`,
  FACEVERIFY_VITEST_REPORT: report,
};
const child = spawn(node.bin, args, { cwd: ROOT, env, stdio: 'inherit' });
child.on('close', (code) => process.exit(code ?? 1));
