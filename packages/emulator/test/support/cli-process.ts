import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The installed command: the committed launcher, which runs the built dist/cli.js. */
export const CLI_PATH = fileURLToPath(new URL('../../bin/faceverify-emulator.js', import.meta.url));
const BUILT_CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export function assertCliBuilt(): void {
  if (!existsSync(BUILT_CLI)) {
    throw new Error(
      'dist/cli.js is missing: run `pnpm --filter @faceverify/emulator build` first.',
    );
  }
}

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
}

/** Spawns the CLI with exactly `env` (plus PATH), collecting its output. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): CliRun {
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits until the CLI has printed its startup summary; fails if it exits first. */
export async function waitUntilRunning(run: CliRun, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!run.stdout().includes('Press Ctrl+C to stop.')) {
    if (run.child.exitCode !== null) {
      throw new Error(`the CLI exited with ${run.child.exitCode}: ${run.stderr()}`);
    }
    if (Date.now() > deadline)
      throw new Error(`the CLI did not start: ${run.stdout()}${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return run.stdout();
}

/** The value printed after `label` in the startup summary. */
export function printed(output: string, label: string): string {
  const line = output.split('\n').find((candidate) => candidate.trim().startsWith(label));
  if (!line) throw new Error(`"${label}" is not in the output:\n${output}`);
  return line.trim().slice(label.length).trim();
}
