import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, chownSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asUser, type PostgresServer, serverUser } from './postgres-server.js';
import { freePort } from './redis-server.js';

/** A PgBouncer in front of a test PostgreSQL server, on its own port on 127.0.0.1. */
export interface PgBouncerServer {
  readonly port: number;
  /** A connection string to `database` through the pooler, with the server's password. */
  url(database?: string): string;
  /** Stops the pooler at once (SIGTERM: every client and server connection is cut). */
  stop(): Promise<void>;
  /** Stops it and starts it again on the same port and settings. */
  restart(): Promise<void>;
}

export interface StartPgBouncerOptions {
  /** `session` or `transaction` pooling. Default `transaction`. */
  poolMode?: 'session' | 'transaction';
  /** Server connections per database and user. Default 20. */
  poolSize?: number;
  /** Startup parameters PgBouncer accepts and drops (`ignore_startup_parameters`). */
  ignoreStartupParameters?: string[];
}

const BINARY = '/usr/sbin/pgbouncer';

/** Fails the whole run when PgBouncer is missing: tests that need it never skip. */
export function requirePgBouncer(): string {
  for (const candidate of [BINARY, '/usr/bin/pgbouncer']) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not installed here
    }
  }
  throw new Error(
    'PgBouncer is missing. These tests need a real pooler in front of PostgreSQL: install it with `sudo apt-get install -y pgbouncer` (the CI image must provide it).',
  );
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts Debian's `pgbouncer` in front of `server`, in a temporary folder of its own, with
 * SCRAM authentication of the server's superuser. PgBouncer refuses to run as root, so as
 * root it runs as the same unprivileged user as the test PostgreSQL.
 */
export async function startPgBouncer(
  server: Pick<PostgresServer, 'host' | 'port' | 'user' | 'password'>,
  options: StartPgBouncerOptions = {},
): Promise<PgBouncerServer> {
  const binary = requirePgBouncer();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'faceverify-pgbouncer-'));
  const port = await freePort();
  const config = join(dir, 'pgbouncer.ini');
  const users = join(dir, 'userlist.txt');
  writeFileSync(users, `"${server.user}" "${server.password}"\n`, { mode: 0o600 });
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=${server.host} port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = scram-sha-256',
      `auth_file = ${users}`,
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `default_pool_size = ${options.poolSize ?? 20}`,
      'max_client_conn = 500',
      `ignore_startup_parameters = ${(options.ignoreStartupParameters ?? []).join(',')}`,
      'server_login_retry = 1',
      '',
    ].join('\n'),
  );
  if (user) for (const path of [dir, config, users]) chownSync(path, user.uid, user.gid);

  let child: ChildProcess;
  let output = '';
  const launch = async () => {
    const [command, args] = asUser(user, binary, [config]);
    child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const deadline = Date.now() + 15_000;
    while (!(await accepts(port))) {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited early:\n${output}`);
      if (Date.now() > deadline)
        throw new Error(`pgbouncer did not listen within 15 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const stop = async () => {
    const done = exited(child);
    child.kill('SIGTERM');
    await done;
  };
  await launch();
  return {
    port,
    url(database = 'postgres') {
      return `postgres://${server.user}:${encodeURIComponent(server.password)}@127.0.0.1:${port}/${database}`;
    },
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await stop();
      await launch();
    },
  };
}
