import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** A redis-server process started for the tests. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** Stops the server gracefully (SIGTERM: Redis flushes its append-only file first). */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Reuse a port, to restart a server where its clients expect it. Default: a free port. */
  port?: number;
  /** Data directory. Default: a new temporary directory, removed on stop. */
  dir?: string;
  /** Extra configuration, e.g. ['--appendonly', 'yes']. Later options win. */
  args?: readonly string[];
}

function redisServerOnPath(): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((folder) => {
    try {
      accessSync(join(folder, 'redis-server'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Fails the whole run when redis-server is missing: these tests never skip. */
export function requireRedisServer(): void {
  if (redisServerOnPath()) return;
  const install = 'apt-get install -y redis-server';
  throw new Error(
    process.env.CI === 'true'
      ? `redis-server is not on PATH. These tests need a real Redis; the CI ` +
          `image must provide it (${install}).`
      : `redis-server is not on PATH. These tests need a real Redis: ` +
          `install it with \`sudo ${install}\` (or run \`node scripts/ensure-system-deps.mjs\`).`,
  );
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port assigned'));
      });
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      // A server with a password answers NOAUTH, which still means it is up; LOADING does not.
      const reply = data.toString();
      resolve(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function waitReady(child: ChildProcess, port: number, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`redis-server exited with ${child.exitCode}:\n${output()}`);
    }
    if (await ping(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not answer on port ${port} within 10 s:\n${output()}`);
}

export async function startRedisServer(options: StartOptions = {}): Promise<RedisServer> {
  requireRedisServer();
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'faceverify-redis-'));
  const port = options.port ?? (await freePort());
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      ...(options.args ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  await waitReady(child, port, () => output);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    async stop() {
      const done = exited(child);
      child.kill('SIGTERM');
      await done;
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
