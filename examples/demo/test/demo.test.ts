import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';

const DEMO_DIR = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(DEMO_DIR, '..', '..');
const MAIN = join(DEMO_DIR, 'dist', 'main.js');
// The same compiler `pnpm build` runs (the root's `tsc`: TypeScript 7's native one).
const TSC = join(
  dirname(createRequire(import.meta.url).resolve('typescript-7/package.json')),
  'bin',
  'tsc',
);

interface Run {
  code: number | null;
  output: string;
}

/** Runs the built demo as `pnpm demo` does, in CI mode: no terminal, nobody to wait for. */
function runDemo(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

beforeAll(async () => {
  // The demo runs from JavaScript built against the packages' dist, which the root
  // `pnpm test` builds before any test; compile the demo and the examples it imports.
  for (const pkg of ['core', 'express', 'koa', 'hono', 'emulator']) {
    if (!existsSync(join(ROOT, 'packages', pkg, 'dist', 'index.js'))) {
      throw new Error(`packages/${pkg} is not built: run pnpm build (pnpm test does) first`);
    }
  }
  await promisify(execFile)(process.execPath, [TSC, '-b', join(DEMO_DIR, 'tsconfig.build.json')]);
});

// Concurrently: each run is its own process with its own emulator and ports, and spends most of
// its 12 s waiting (the pacer, the poll schedule), not computing.
it.concurrent.each([
  ['express', 'Express'],
  ['koa', 'Koa'],
  ['hono', 'Hono on Node.js'],
])('pnpm demo -- --framework %s passes all five steps', async (framework, label) => {
  const { code, output } = await runDemo(['--', '--framework', framework]);
  expect(code, output).toBe(0);
  expect(output).toContain(`faceverify demo: ${label} receiver`);
  // The hosted page is completed by a real browser here, never by the fallback call.
  expect(output).toContain('headless Chromium opens the hosted page and clicks "Verified"');
  expect(output).toContain(`Summary (${label})`);
  for (const step of [1, 2, 3, 4, 5]) {
    expect(output).toMatch(new RegExp(`^ {2}${step} {2}.+ {2}passed {2}\\d+\\.\\d s`, 'm'));
  }
  expect(output).toMatch(/^ {2}5 of 5 steps passed in \d+\.\d s$/m);
  expect(output).toContain('Not waiting for a person: CI is set.');
  // The library's own log lines are narrated under the step that caused them, not raw.
  expect(output).not.toMatch(/^\[faceverify\]/m);
  expect(output).toMatch(
    /^ {2}│ faceverify logged \(warn\): Webhook rejected: signature does not match the raw body\./m,
  );
});

it('refuses an unknown framework with the usage and exit code 2', async () => {
  const { code, output } = await runDemo(['--framework', 'fastify']);
  expect(code).toBe(2);
  expect(output).toContain('unknown framework "fastify"');
  expect(output).toContain('usage: pnpm demo');
});
