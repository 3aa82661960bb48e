import { spawn } from 'node:child_process';
import { onTestFinished } from 'vitest';

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
