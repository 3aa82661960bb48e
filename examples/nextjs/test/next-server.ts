import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const EXAMPLE_DIR = fileURLToPath(new URL('..', import.meta.url));
const NEXT_BIN = fileURLToPath(new URL('../node_modules/next/dist/bin/next', import.meta.url));

/** This process's environment without any `FACEVERIFY_*` variable. */
function withoutFaceverifyVariables(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name.startsWith('FACEVERIFY_')) delete env[name];
  }
  return env;
}

/** Runs the `next` command in the example's folder; rejects with its output when it fails. */
function runNext(args: string[], env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NEXT_BIN, ...args], {
      cwd: EXAMPLE_DIR,
      env: { ...withoutFaceverifyVariables(), NEXT_TELEMETRY_DISABLED: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`next ${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

/**
 * `next build`, as CI runs it on a clean clone and without any `FACEVERIFY_*` variable (a
 * build machine has none); resolves with how long it took.
 */
export async function buildApp(): Promise<number> {
  const started = performance.now();
  await runNext(['build']);
  return performance.now() - started;
}

/** A port nothing listens on right now, chosen by the OS. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface RunningNext {
  url: string;
  /** Everything the server printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * `next start` on a free port of 127.0.0.1 with `env`, resolved once the server answers
 * HTTP. Fails when the server exits first, or does not answer within `timeoutMs`.
 */
export async function startApp(
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<RunningNext> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    process.execPath,
    [NEXT_BIN, 'start', '--port', String(port), '--hostname', '127.0.0.1'],
    {
      cwd: EXAMPLE_DIR,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', APP_URL: url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<never>((_resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`next start exited with ${code}:\n${output}`)));
  });
  exited.catch(() => undefined);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await Promise.race([fetch(`${url}/api/verifications/nobody`), exited]);
      return { url, output: () => output, stop };
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw error instanceof Error && child.exitCode !== null
          ? error
          : new Error(`next start did not answer on ${url} within ${timeoutMs} ms:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
