// Another revision of this repository, checked out beside it and built, so that a benchmark
// can run its library and today's in the same run: a detached git worktree in the system's
// temporary folder, its dependencies installed from the pnpm store (offline, as locked), its
// packages built. Removed again (`remove()`) when the run is done.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs a command to completion, its output shown; throws with `what` when it fails. */
function run(what, command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    throw new Error(`${what} failed (${command} ${args.join(' ')}, in ${cwd})`);
  }
}

/** pnpm as this process was started with it (`pnpm bench:revisions`), else from the PATH. */
function pnpm() {
  const execPath = process.env.npm_execpath;
  return execPath && /pnpm/.test(execPath)
    ? { command: process.execPath, prefix: [execPath] }
    : { command: 'pnpm', prefix: [] };
}

/**
 * Checks `revision` out and builds it; resolves where its packages are.
 * @param {string} root this repository's folder
 * @param {string} revision any git revision (`main`, `HEAD~3`, a commit)
 * @returns {{ sha: string, packages: string, server: string, remove(): void }} `packages`: its
 *   packages' folder; `server`: its bench server
 */
export function builtRevision(root, revision) {
  const parsed = spawnSync('git', ['rev-parse', '--verify', `${revision}^{commit}`], {
    cwd: root,
    encoding: 'utf8',
  });
  if (parsed.status !== 0) throw new Error(`"${revision}" is not a commit of this repository.`);
  const sha = parsed.stdout.trim();
  const dir = join(tmpdir(), `faceverify-bench-${sha.slice(0, 12)}`);
  if (!existsSync(join(dir, 'packages', 'core', 'dist', 'index.js'))) {
    if (existsSync(dir))
      run('removing a half-built checkout', 'git', ['worktree', 'remove', '--force', dir], root);
    console.log(`Checking out ${revision} (${sha.slice(0, 12)}) in ${dir} and building it…`);
    run('git worktree add', 'git', ['worktree', 'add', '--detach', dir, sha], root);
    const { command, prefix } = pnpm();
    run(
      'installing',
      command,
      [...prefix, 'install', '--offline', '--frozen-lockfile', '--silent'],
      dir,
    );
    run('building', process.execPath, ['scripts/quiet-build.mjs', './packages/**'], dir);
  }
  return {
    sha,
    packages: join(dir, 'packages'),
    server: join(dir, 'bench', 'lib', 'http-server.mjs'),
    remove: () => run('git worktree remove', 'git', ['worktree', 'remove', '--force', dir], root),
  };
}
