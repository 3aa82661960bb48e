import { spawn } from 'node:child_process';
import { expect, onTestFinished } from 'vitest';
import { freePort } from './redis-server.js';

/** How a command ended: its exit code and everything it printed, stdout and stderr. */
export interface ExitedCommand {
  code: number | null;
  output: string;
}

/**
 * Runs an example's command, its `src/main.ts` under tsx (what `pnpm start` runs, built), in
 * `exampleDir` with `env` and none of this process's `FACEVERIFY_*` variables, and resolves
 * once it exits. The test's own timeout bounds the wait; a process still running when the
 * test ends is killed.
 */
export function runExampleMain(
  exampleDir: string,
  env: Record<string, string>,
): Promise<ExitedCommand> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(childEnv)) {
    if (name.startsWith('FACEVERIFY_')) delete childEnv[name];
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: exampleDir,
    env: Object.assign(childEnv, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/**
 * The case every Node example shares: `pnpm start` (its `src/main.ts`) while the emulator is
 * not running says what failed and how to start the emulator, and exits 1 without a stack
 * trace.
 */
export async function expectStartWithoutEmulator(exampleDir: string): Promise<void> {
  const port = await freePort();
  const { code, output } = await runExampleMain(exampleDir, {
    PORT: String(port),
    // Nothing listens there: the emulator is not running.
    FACEVERIFY_BASE_URL: `http://127.0.0.1:${await freePort()}`,
    FACEVERIFY_API_KEY: 'fv_test_main_without_the_emulator_01',
    FACEVERIFY_WEBHOOK_SECRET: 'whsec_main_without_the_emulator_01',
  });
  expect(code, output).toBe(1);
  expect(output).toMatch(/^GET \/v1\/sessions\/:token failed without a response \(.*ECONNREFUSED/);
  expect(output).toContain('Is the emulator running? Start it in another terminal with');
  expect(output).toContain(
    `npx faceverify-emulator --callback-url http://127.0.0.1:${port}/webhooks/verification`,
  );
  expect(output).not.toMatch(/^\s+at /m);
}
