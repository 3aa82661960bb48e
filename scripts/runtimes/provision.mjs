// Installs runtimes from the npm registry into a cache directory and finds their executables.
// Each runtime gets its own folder with a private package.json, so nothing touches the
// workspace's dependencies or lockfile, and a second run needs no network at all.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, delimiter, join } from 'node:path';

const INSTALL_TIMEOUT_MS = 5 * 60_000;
const VERSION_TIMEOUT_MS = 30_000;
const STAMP = 'faceverify-installed.json';

/**
 * Runs a command to completion and captures its output. Never rejects: a command that cannot
 * start reports `code: null` and the reason in `error`.
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, cwd?: string, timeoutMs: number }} options
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string, error?: string }>}
 */
export function capture(command, args, { env, cwd, timeoutMs }) {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish({ code: null, error: `timed out after ${Math.round(timeoutMs / 1000)} s` });
    }, timeoutMs);
    function finish(result) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ stdout, stderr, ...result });
    }
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', (error) => finish({ code: null, error: error.message }));
    child.on('close', (code) => finish({ code }));
  });
}

/** The last lines of some output, for an error message. */
export function tail(text, lines = 15) {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** npm's own explanation of a failure, without the stack trace and object dump it appends. */
function npmErrorSummary(text) {
  const lines = text
    .trimEnd()
    .split('\n')
    .filter((line) => !/^npm error(?:\s+at\s|\s{2,}\S|\s*[{}]\s*$|\s*$)/.test(line));
  return lines.slice(0, 12).join('\n');
}

/**
 * The environment for npm: the caller's, minus what `pnpm run` adds for its own npm-compatible
 * settings (npm warns about each, and pnpm's user agent is not npm's).
 */
function npmEnv(extraPath) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^npm_(?:command|execpath|node_execpath|lifecycle_|package_)/i.test(key)) delete env[key];
    if (/^npm_config_(?:user_agent|verify_deps_before_run)$/i.test(key)) delete env[key];
  }
  if (extraPath) env.PATH = `${extraPath}${delimiter}${env.PATH ?? ''}`;
  return env;
}

/** First candidate that exists and answers `--version` with exit code 0. */
async function firstWorking(candidates) {
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const result = await capture(candidate, ['--version'], { timeoutMs: VERSION_TIMEOUT_MS });
    if (result.code === 0) return { bin: candidate, versionOutput: result.stdout.trim() };
  }
  return undefined;
}

/**
 * Makes sure `spec` (e.g. `bun@1`) is installed under `dir`, reusing an earlier install of the
 * same spec unless `refresh` is set.
 *
 * @param {object} options
 * @param {string} options.dir the runtime's own cache folder
 * @param {string} options.spec what to install from the registry
 * @param {(dir: string) => string[]} options.candidates executables to try, in order
 * @param {string} [options.nodeBinDir] a folder put first on PATH while npm runs, to install
 *   with another Node version (npm picks package versions whose `engines` match the Node it
 *   runs on)
 * @param {boolean} [options.refresh]
 * @returns {Promise<{ bin: string, versionOutput: string, dir: string, installed: boolean }>}
 */
export async function ensureInstalled({ dir, spec, candidates, nodeBinDir, refresh = false }) {
  const stampPath = join(dir, STAMP);
  if (!refresh && existsSync(stampPath)) {
    const stamp = JSON.parse(readFileSync(stampPath, 'utf8'));
    if (stamp.spec === spec) {
      const found = await firstWorking(candidates(dir));
      if (found) return { ...found, dir, installed: false };
    }
  }

  // Install beside the cache folder and swap it in only once it works, so a failed refresh
  // (offline, registry down) leaves the previous install usable.
  const staging = `${dir}.installing`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  // A name of its own: npm names a nameless root after its folder, and a folder named `bun`
  // would make `npm install bun` a no-op.
  const folderName = basename(dir);
  writeFileSync(
    join(staging, 'package.json'),
    `${JSON.stringify({ name: `faceverify-runtime-cache-${folderName}`, private: true }, null, 2)}\n`,
  );
  const result = await capture(
    'npm',
    ['install', '--prefix', staging, spec, '--no-audit', '--no-fund', '--loglevel=error'],
    { env: npmEnv(nodeBinDir), cwd: staging, timeoutMs: INSTALL_TIMEOUT_MS },
  );
  if (result.code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(
      `npm install ${spec} failed (${result.error ?? `exit code ${result.code}`}):\n${npmErrorSummary(result.stderr || result.stdout)}`,
    );
  }
  writeFileSync(
    join(staging, STAMP),
    `${JSON.stringify({ spec, installedAt: new Date().toISOString() }, null, 2)}\n`,
  );
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  const found = await firstWorking(candidates(dir));
  if (!found) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `npm installed ${spec}, but no working executable was found in it (did its install script run? npm's ignore-scripts must be off for it)`,
    );
  }
  return { ...found, dir, installed: true };
}

/** Executables a package installed in `dir` may provide, most direct first. */
export function binCandidates(dir, name) {
  const exe = process.platform === 'win32' ? `${name}.exe` : name;
  const list = [
    join(dir, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name),
  ];
  // The platform packages hold the real binary; used when the wrapper's install script did not run.
  const scopeDirs = { bun: '@oven', deno: '@deno', workerd: '@cloudflare' };
  const scope = scopeDirs[name];
  if (scope) {
    const scopeDir = join(dir, 'node_modules', scope);
    if (existsSync(scopeDir)) {
      for (const platformPackage of readdirSync(scopeDir)) {
        list.push(
          join(scopeDir, platformPackage, 'bin', exe),
          join(scopeDir, platformPackage, exe),
        );
      }
    }
  }
  if (name === 'node') list.unshift(join(dir, 'node_modules', 'node', 'bin', exe));
  return list;
}

/** The version of a package npm installed (flat) under `dir`, read from its package.json. */
export function installedVersion(dir, packageName) {
  try {
    const manifest = join(dir, 'node_modules', ...packageName.split('/'), 'package.json');
    return JSON.parse(readFileSync(manifest, 'utf8')).version;
  } catch {
    return undefined;
  }
}
