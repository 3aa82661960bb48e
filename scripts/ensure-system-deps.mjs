#!/usr/bin/env node
// The test suite talks to a real redis-server and a real PostgreSQL, and drives a real
// Chromium. This installs them from Debian's packages when they are missing and we may (root with apt-get), and otherwise
// says exactly what to install. Tests never skip silently because one is absent.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const needs = [
  { what: 'redis-server', present: () => onPath('redis-server'), pkg: 'redis-server' },
  { what: 'Chromium', present: () => existsSync('/usr/bin/chromium'), pkg: 'chromium' },
  // Tests start clusters of their own with initdb and postgres, which Debian keeps in
  // /usr/lib/postgresql/<major>/bin rather than on PATH.
  { what: 'PostgreSQL', present: postgresInstalled, pkg: 'postgresql' },
];

function postgresInstalled() {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    for (const major of readdirSync(root)) {
      if (existsSync(join(root, major, 'bin', 'initdb'))) return true;
    }
  }
  return onPath('initdb') && onPath('postgres');
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

const missing = needs.filter((need) => !need.present());
if (missing.length === 0) process.exit(0);

const packages = missing.map((need) => need.pkg);
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (!isRoot || !onPath('apt-get')) {
  console.error(
    `Missing for the tests: ${missing.map((need) => need.what).join(', ')}.\n` +
      `Install them with: sudo apt-get install -y ${packages.join(' ')}`,
  );
  process.exit(1);
}
console.log(`Installing ${packages.join(', ')} from Debian's packages...`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
  stdio: 'inherit',
  env,
});
