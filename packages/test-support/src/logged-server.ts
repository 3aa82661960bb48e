import { type ChildProcess, spawn, spawnSync } from 'node:child_process';

/** A server process started by a test, with the tail of what it printed. */
export interface LoggedServer {
  readonly child: ChildProcess;
  /** The last 8,000 characters the server printed, for a failure's message. */
  output(): string;
  /** Sends SIGTERM to the server's process group, and resolves once the server exited. */
  stop(): Promise<void>;
}

/** The path the shell finds `command` at, or undefined. */
export function commandPath(command: string): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v "$0"', command], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

/** The error of a missing server binary: these tests never skip, and say what to install. */
export function missingServer(what: string, debianPackage: string): Error {
  const install = `apt-get install -y ${debianPackage}`;
  return new Error(
    process.env.CI === 'true'
      ? `${what} is missing. These tests need a real one; the CI image must provide it (${install}).`
      : `${what} is missing. These tests need a real one: install it with \`sudo ${install}\` ` +
          '(or run `node scripts/ensure-system-deps.mjs`).',
  );
}

/**
 * Starts `command` in a process group of its own (a wrapper script and the server it starts
 * stop together) and resolves once its output matches `ready`; fails with that output when
 * it exits first or is not ready within `timeoutMs`.
 */
export async function startLoggedServer(
  what: string,
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; ready: RegExp; timeoutMs: number },
): Promise<LoggedServer> {
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
      if (options.ready.test(output)) resolve();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      reject(new Error(`${what} exited (${code ?? signal}) before it was ready:\n${output}`)),
    );
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // The group is gone already.
      }
    }
    await exited;
  };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} was not ready within ${options.timeoutMs} ms:\n${output}`)),
      options.timeoutMs,
    );
  });
  try {
    await Promise.race([ready, late]);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { child, output: () => output, stop };
}
