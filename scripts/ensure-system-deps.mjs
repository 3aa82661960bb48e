#!/usr/bin/env node
// The test suite talks to a real redis-server, PostgreSQL (also behind PgBouncer), nats-server
// and RabbitMQ, runs a Python consumer, and drives a real Chromium. This installs them from
// Debian's packages when they are missing and we may (root with apt-get), and otherwise says
// exactly what to install.
// Tests never skip silently because one is absent.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const needs = [
  { what: 'redis-server', present: () => onPath('redis-server'), pkg: 'redis-server' },
  { what: 'Chromium', present: () => existsSync('/usr/bin/chromium'), pkg: 'chromium' },
  // Tests start clusters of their own with initdb and postgres, which Debian keeps in
  // /usr/lib/postgresql/<major>/bin rather than on PATH.
  { what: 'PostgreSQL', present: postgresInstalled, pkg: 'postgresql' },
  // The reliability and PostgreSQL tests put a real pooler in front of it.
  {
    what: 'PgBouncer',
    present: () => existsSync('/usr/sbin/pgbouncer') || existsSync('/usr/bin/pgbouncer'),
    pkg: 'pgbouncer',
  },
  // The sinks' tests publish to a real NATS JetStream and a real RabbitMQ node; the Python
  // consumer example's test reads a Redis stream with redis-py.
  { what: 'nats-server', present: () => onPath('nats-server'), pkg: 'nats-server' },
  {
    what: 'RabbitMQ',
    present: () => existsSync('/usr/lib/rabbitmq/bin/rabbitmq-server') || onPath('rabbitmq-server'),
    pkg: 'rabbitmq-server',
  },
  { what: 'python3 with redis-py', present: () => pythonImports('redis'), pkg: 'python3-redis' },
];

// Debian's python3-* packages install for the system's interpreter, which the example's test
// runs, whatever else (pyenv) comes first on PATH.
function pythonImports(module) {
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  return spawnSync(python, ['-c', `import ${module}`], { stdio: 'ignore' }).status === 0;
}

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
