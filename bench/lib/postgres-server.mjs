// A throwaway PostgreSQL cluster for benchmarks: initdb into a temporary folder, a free
// loopback port, durability off (fsync=off). PostgreSQL refuses to run as root: as root it
// runs as the `postgres` user of Debian's package (setpriv). Stopped and removed by `stop()`.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
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

function binDir() {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!majors[0]) {
    throw new Error('PostgreSQL is not installed: run `node scripts/ensure-system-deps.mjs`.');
  }
  return join(root, majors[0], 'bin');
}

function asServerUser(binary, args) {
  if (process.getuid?.() !== 0) return [binary, args];
  const uid = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
  const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
  return [
    'setpriv',
    [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', binary, args].flat(),
  ];
}

/** @returns {Promise<{ url: string, stop(): Promise<void> }>} trust authentication, user postgres */
export async function startPostgresServer() {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'faceverify-bench-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  const [initdb, initArgs] = asServerUser(join(bin, 'initdb'), [
    '-D',
    dir,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
  ]);
  execFileSync(initdb, initArgs, { stdio: 'pipe' });
  const port = await freePort();
  const [postgres, args] = asServerUser(join(bin, 'postgres'), [
    '-D',
    dir,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
  ]);
  const child = spawn(postgres, args, { stdio: 'ignore' });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      execFileSync(join(bin, 'pg_isready'), ['-q', '-h', dir, '-p', String(port)], {
        stdio: 'ignore',
      });
      break;
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error('PostgreSQL did not start within 30 s');
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
