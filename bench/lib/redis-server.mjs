// A throwaway redis-server for benchmarks: a free loopback port, a temporary directory, no
// persistence (`--save '' --appendonly no`). Stopped and removed by `stop()`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function ping(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** @returns {Promise<{ url: string, port: number, pid: number, stop(): Promise<void> }>} */
export async function startRedisServer() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'faceverify-bench-redis-'));
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
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let failure;
  child.once('error', (error) => {
    failure = error;
  });
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    if (failure || child.exitCode !== null) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        `redis-server did not start (${failure?.message ?? `exit ${child.exitCode}`}); is it installed?`,
      );
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error('redis-server did not answer PING within 10 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(kill);
          done();
        });
        child.kill('SIGTERM');
      }),
  };
}
