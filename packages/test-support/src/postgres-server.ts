import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chownSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { freePort } from './redis-server.js';

/**
 * A PostgreSQL cluster started for the tests: its own data folder, its own port on
 * 127.0.0.1 and its own unix socket in the data folder. The superuser `postgres` connects
 * over TCP with `password` (scram-sha-256), or without one over the socket.
 */
export interface PostgresServer {
  readonly port: number;
  readonly host: '127.0.0.1';
  /** Folder of the unix socket (also the data folder). */
  readonly socketDir: string;
  readonly dir: string;
  readonly user: 'postgres';
  readonly password: string;
  /** A connection string to `database` over TCP, password included. */
  url(database?: string): string;
  /** Creates a database (owned by `postgres`) and returns its name. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (fast shutdown); with `remove` (the default) deletes its folder too. */
  stop(options?: { remove?: boolean }): Promise<void>;
}

export interface StartPostgresOptions {
  /** Reuse a port, to restart a server where its clients expect it. Default: a free port. */
  port?: number;
  /** Data folder of an earlier server of this run, to restart it with its data. */
  dir?: string;
  /** The superuser's password of a restarted server. */
  password?: string;
}

function onPath(command: string): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(folder, command), constants.X_OK);
      return folder;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/**
 * Where the server binaries are: Debian's `postgresql` package puts them in
 * `/usr/lib/postgresql/<major>/bin` (the newest installed major wins), other systems on PATH.
 */
function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root)
      .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(root, majors[0], 'bin');
  }
  const folder = onPath('postgres');
  return folder && existsSync(join(folder, 'initdb')) ? folder : undefined;
}

/** Fails the whole run when PostgreSQL is missing: these tests never skip. */
export function requirePostgresServer(): string {
  const bin = postgresBinDir();
  if (bin) return bin;
  const install = 'apt-get install -y postgresql';
  throw new Error(
    process.env.CI === 'true'
      ? `PostgreSQL server binaries (initdb, postgres) are missing. These tests need a real ` +
          `PostgreSQL; the CI image must provide it (${install}).`
      : `PostgreSQL server binaries (initdb, postgres) are missing. These tests need a real ` +
          `PostgreSQL: install it with \`sudo ${install}\` (or run \`node scripts/ensure-system-deps.mjs\`).`,
  );
}

export interface ServerUser {
  uid: number;
  gid: number;
}

const UNPRIVILEGED_USER = 'faceverify-pg';

function idOf(name: string): ServerUser | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/**
 * PostgreSQL refuses to run as root. Run as root (a container, CI), the server runs as the
 * `postgres` user that Debian's package creates, or else as a system user `faceverify-pg`
 * created here; otherwise it runs as the current user.
 */
export function serverUser(): ServerUser | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const existing = idOf('postgres') ?? idOf(UNPRIVILEGED_USER);
  if (existing) return existing;
  execFileSync('useradd', ['--system', '--no-create-home', UNPRIVILEGED_USER]);
  const created = idOf(UNPRIVILEGED_USER);
  if (!created) throw new Error(`could not create the user ${UNPRIVILEGED_USER} for PostgreSQL`);
  return created;
}

/** The command line that runs `binary` as `user` (setpriv execs: the pid is the binary's). */
export function asUser(
  user: ServerUser | undefined,
  binary: string,
  args: string[],
): [string, string[]] {
  if (!user) return [binary, args];
  return [
    'setpriv',
    [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', binary, ...args],
  ];
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function isReady(bin: string, socketDir: string, port: number): boolean {
  try {
    execFileSync(
      join(bin, 'pg_isready'),
      ['-q', '-h', socketDir, '-p', String(port), '-U', 'postgres'],
      {
        stdio: 'ignore',
      },
    );
    return true;
  } catch {
    return false;
  }
}

async function waitReady(
  child: ChildProcess,
  bin: string,
  socketDir: string,
  port: number,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`postgres exited with ${child.exitCode}:\n${output()}`);
    }
    if (isReady(bin, socketDir, port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`postgres did not answer on port ${port} within 30 s:\n${output()}`);
}

function initCluster(bin: string, user: ServerUser | undefined, dir: string, password: string) {
  const pwdir = mkdtempSync(join(tmpdir(), 'faceverify-pgpw-'));
  const pwfile = join(pwdir, 'password');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (user) {
    chownSync(pwdir, user.uid, user.gid);
    chownSync(pwfile, user.uid, user.gid);
  }
  try {
    const [command, args] = asUser(user, join(bin, 'initdb'), [
      '-D',
      dir,
      '-U',
      'postgres',
      '--pwfile',
      pwfile,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '--encoding=UTF8',
      '--no-sync',
    ]);
    execFileSync(command, args, { stdio: 'pipe' });
  } finally {
    rmSync(pwdir, { recursive: true, force: true });
  }
}

// The password of the template cluster's superuser, replaced as each copy starts.
const TEMPLATE_PASSWORD = 'faceverify-template';

/**
 * A new cluster in `dir`: a copy of one `initdb` made once per machine, PostgreSQL release and
 * user (initdb is most of the CPU a server's start costs, and a run starts a dozen). Processes
 * that make it at once each build their own and rename it into place; one rename wins whole.
 */
function copyTemplateCluster(bin: string, user: ServerUser | undefined, dir: string): void {
  const release = basename(dirname(bin));
  const owner = user?.uid ?? process.getuid?.() ?? 'user';
  const template = join(tmpdir(), `faceverify-pg-template-${release}-${owner}`);
  if (!existsSync(join(template, 'PG_VERSION'))) {
    const building = mkdtempSync(join(tmpdir(), 'faceverify-pg-building-'));
    if (user) chownSync(building, user.uid, user.gid);
    initCluster(bin, user, building, TEMPLATE_PASSWORD);
    try {
      renameSync(building, template);
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
  }
  // `cp -a` keeps the owner and the 0700 modes PostgreSQL requires of its data folder.
  execFileSync('cp', ['-a', `${template}/.`, dir], { stdio: 'pipe' });
}

/** Gives the superuser of a copied cluster its own password, over the unix socket. */
function setPassword(bin: string, dir: string, port: number, password: string): void {
  execFileSync(join(bin, 'psql'), ['-h', dir, '-p', String(port), '-U', 'postgres', '-q'], {
    input: `ALTER ROLE postgres PASSWORD '${password.replaceAll("'", "''")}';\n`,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * Starts a PostgreSQL cluster of its own: a copy of a cluster `initdb` made once into a new
 * temporary folder (skipped when `dir` holds one already), then `postgres` on a free port,
 * durability off (`fsync=off`: test data need not survive a power cut, and it keeps the tests
 * fast).
 */
export async function startPostgresServer(
  options: StartPostgresOptions = {},
): Promise<PostgresServer> {
  const bin = requirePostgresServer();
  const user = serverUser();
  const password = options.password ?? `pg-${randomBytes(12).toString('hex')}`;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'faceverify-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const copied = !existsSync(join(dir, 'PG_VERSION'));
  if (copied) copyTemplateCluster(bin, user, dir);
  const port = options.port ?? (await freePort());
  const [command, args] = asUser(user, join(bin, 'postgres'), [
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
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
  ]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  await waitReady(child, bin, dir, port, () => output);
  if (copied) setPassword(bin, dir, port, password);
  let databases = 0;
  return {
    port,
    host: '127.0.0.1',
    socketDir: dir,
    dir,
    user: 'postgres',
    password,
    url(database = 'postgres') {
      return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
    },
    async createDatabase(name = `test_${process.pid}_${++databases}`) {
      execFileSync(join(bin, 'createdb'), ['-h', dir, '-p', String(port), '-U', 'postgres', name], {
        stdio: 'pipe',
      });
      return name;
    },
    async stop({ remove = true } = {}) {
      const done = exited(child);
      // SIGINT is PostgreSQL's fast shutdown: open sessions are ended, not waited for.
      child.kill('SIGINT');
      await done;
      if (remove) rmSync(dir, { recursive: true, force: true });
    },
  };
}
