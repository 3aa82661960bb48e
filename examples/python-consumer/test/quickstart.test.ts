import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const QUICKSTART = fileURLToPath(new URL('../quickstart.mjs', import.meta.url));

interface Run {
  code: number | NodeJS.Signals;
  output: string;
}

/**
 * Runs the quickstart in a process group of its own, as a terminal runs a command; with
 * `interruptAt`, sends that group SIGINT (a person's Ctrl+C) once the output holds the text.
 */
function runQuickstart(args: string[] = [], interruptAt?: string): Promise<Run> {
  const child = spawn(process.execPath, [QUICKSTART, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  let interrupted = false;
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (interruptAt !== undefined && !interrupted && output.includes(interruptAt)) {
      interrupted = true;
      process.kill(-(child.pid as number), 'SIGINT');
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise((resolve) =>
    child.once('exit', (code, signal) =>
      resolve({ code: code ?? (signal as NodeJS.Signals), output }),
    ),
  );
}

/** Whether something accepts TCP connections at the URL's port on loopback. */
function listening(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port: Number(new URL(url).port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function addresses(output: string): string[] {
  return [...output.matchAll(/(?:redis|http):\/\/127\.0\.0\.1:\d+/g)].map((match) => match[0]);
}

it('one command: a session started through the relay and completed at the emulator reaches the Python consumer exactly once, and everything it started is stopped', async () => {
  const { code, output } = await runQuickstart();
  expect(code, output).toBe(0);
  const consumerLines = output.split('\n').filter((line) => line.includes('│ consumer: '));
  expect(consumerLines, output).toHaveLength(1);
  expect(consumerLines[0]).toMatch(/│ consumer: verified user_quickstart evt_[0-9a-f]+$/);
  expect(output).toContain(
    " 8. once: the stream holds 1 entry, the relay's metrics say 1 delivered to redis",
  );
  expect(output).toContain(
    'Stopped: Python consumer (exit code 0), relay (exit code 0), emulator, redis-server (exit code 0), temporary folder.',
  );
  expect(output).toMatch(/Done in \d+\.\d s, end to end\./);
  // redis-server, the emulator, the relay's webhook and its internal API: all gone.
  const started = addresses(output);
  expect(started.length).toBeGreaterThanOrEqual(4);
  for (const url of started) expect(await listening(url), url).toBe(false);
});

it('Ctrl+C stops what was started so far and exits with 130', async () => {
  const { code, output } = await runQuickstart([], ' 2. the emulator');
  expect(code, output).toBe(130);
  expect(output).toContain('Stopping…');
  expect(output).toMatch(/Stopped: .*emulator, redis-server \(exit code 0\), temporary folder\./);
  expect(output).not.toContain('Done in');
  for (const url of addresses(output)) expect(await listening(url), url).toBe(false);
});

it('a Python without redis-py: exit code 1, before anything starts, and the fix named', async () => {
  const { code, output } = await runQuickstart(['--python', '/bin/false']);
  expect(code).toBe(1);
  expect(output).toContain(
    'The quickstart failed: /bin/false cannot import redis (redis-py): install it with `sudo apt-get install -y python3-redis` or `pip install -r examples/python-consumer/requirements.txt`',
  );
  expect(output).not.toContain('Stopped:');
});
