#!/usr/bin/env node
// `pnpm relay:quickstart`: a verified result reaching a Python program, end to end, on one
// machine. It starts a temporary redis-server, the emulator (the service), `faceverify-relay`
// with the Redis Streams sink and the Python consumer of this folder; starts one session
// through the relay's internal API as a backend would, completes it at the emulator as the
// user would on the hosted page, and waits for the consumer's line. Then it stops everything
// it started, also after a failure (exit code 1) or Ctrl+C (exit code 130).
//
// usage: node examples/python-consumer/quickstart.mjs [--python <interpreter>]
// (run from the repository root, after the packages are built: `pnpm relay:quickstart` does both)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEmulator } from '@faceverify/emulator';
import { Redis } from 'ioredis';

const CONSUMER = fileURLToPath(new URL('consumer.py', import.meta.url));
const RELAY_BIN = join(
  dirname(createRequire(import.meta.url).resolve('@faceverify/relay/package.json')),
  'bin',
  'faceverify-relay.js',
);
const STREAM = 'faceverify:results';
const USER = 'user_quickstart';
const INTERRUPTED_EXIT_CODE = 130;
// How long each wait may take before the run fails: generous for a busy machine.
const STEP_TIMEOUT_MS = 60_000;

const USAGE = `usage: pnpm relay:quickstart [-- --python <interpreter>]

Starts a temporary redis-server, the emulator, faceverify-relay (Redis Streams sink) and the
Python consumer (examples/python-consumer/consumer.py), sends one verified result through
them, prints each step, and stops them all.

  --python <path>  the Python 3 that runs the consumer; it needs redis-py
                   (default: the first of python3 and /usr/bin/python3 that has it)`;

// Since this process started (performance.now()'s origin): Node.js' start and the imports count.
const seconds = () => `${(performance.now() / 1000).toFixed(1)} s`;
const step = (number, text) =>
  console.log(`${String(number).padStart(2)}. ${text}  (${seconds()})`);

/** A failure the person can fix, said in one line without a stack. */
class QuickstartError extends Error {}

function options() {
  const { values } = parseArgs({
    options: { python: { type: 'string' }, help: { type: 'boolean', default: false } },
  });
  return values;
}

/** The interpreter to run the consumer with: one that can import redis-py. */
function pythonWithRedis(asked) {
  const imports = (python) =>
    spawnSync(python, ['-c', 'import redis'], { stdio: 'ignore' }).status === 0;
  const candidates = asked ? [asked] : ['python3', '/usr/bin/python3'];
  const found = candidates.find(imports);
  if (found) return found;
  throw new QuickstartError(
    `${candidates.join(' and ')} cannot import redis (redis-py): install it with ` +
      '`sudo apt-get install -y python3-redis` or `pip install -r examples/python-consumer/requirements.txt`' +
      (asked ? '' : ', or name an interpreter that has it with --python'),
  );
}

function requireRedisServer() {
  if (spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status === 0) return;
  throw new QuickstartError(
    'redis-server is not on PATH: install it with `sudo apt-get install -y redis-server`',
  );
}

/** Rejects when `signal` aborts, so that every wait ends on Ctrl+C. */
function untilAborted(signal) {
  return new Promise((_, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}

/** `promise`, failing with `what` after STEP_TIMEOUT_MS or at once on Ctrl+C. */
async function within(promise, what, signal) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new QuickstartError(`${what} did not happen within ${STEP_TIMEOUT_MS / 1000} s`)),
      STEP_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([promise, late, untilAborted(signal)]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts a child in a process group of its own, so that Ctrl+C in the terminal reaches only
 * this script, which stops the children in order. Collects what it wrote for a failure's
 * message, and hands each line of its standard output to `onLine`.
 */
function startChild(command, args, env, onLine = () => {}) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  child.once('error', (error) => {
    output += `${error.message}\n`;
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    output += `${line}\n`;
    onLine(line);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    output += chunk;
  });
  /** Sends SIGTERM, and resolves with how it ended: "exit code 0", "SIGTERM". */
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const outcome = await exited;
    return typeof outcome === 'number' ? `exit code ${outcome}` : outcome;
  };
  return { child, exited, output: () => output, stop };
}

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

/**
 * A redis-server of this run only: on loopback, a free port, nothing saved, in a process group
 * of its own (as the other children), so that Ctrl+C does not stop it before the relay that
 * uses it.
 */
async function startRedisServer(dir) {
  const port = await freePort();
  let ready;
  const readyLine = new Promise((resolve) => {
    ready = resolve;
  });
  // Loopback only, nothing written to disk: the run's data goes with it.
  const settings = { port, bind: '127.0.0.1', save: '', appendonly: 'no', dir };
  const server = startChild(
    'redis-server',
    Object.entries(settings).flatMap(([name, value]) => [`--${name}`, String(value)]),
    process.env,
    (line) => {
      if (line.includes('Ready to accept connections')) ready();
    },
  );
  const failed = server.exited.then((code) => {
    throw new QuickstartError(`redis-server exited (${code}):\n${server.output()}`);
  });
  failed.catch(() => {});
  try {
    await Promise.race([readyLine, failed]);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, stop: server.stop };
}

/** The relay's settings: the emulator's credentials, the Redis store and the Redis sink. */
function relayEnv(emulator, redisUrl, token) {
  return {
    PATH: process.env.PATH ?? '',
    FACEVERIFY_BASE_URL: emulator.url,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
    FACEVERIFY_RELAY_TOKEN: token,
    FACEVERIFY_RELAY_WEBHOOK_HOST: '127.0.0.1',
    FACEVERIFY_RELAY_WEBHOOK_PORT: '0',
    FACEVERIFY_RELAY_API_PORT: '0',
    // The Redis server already running for the stream holds the relay's state too: the
    // default, an embedded PGlite, takes seconds to create its data folder on a first start.
    FACEVERIFY_STORE_URL: redisUrl,
    FACEVERIFY_STORE_PREFIX: 'faceverify:relay:',
    FACEVERIFY_SINKS: 'redis',
    FACEVERIFY_SINK_REDIS_URL: redisUrl,
    FACEVERIFY_SINK_REDIS_STREAM: STREAM,
  };
}

/** What is started, in order, so that it is stopped in the reverse order whatever happened. */
function stopList() {
  const stops = [];
  return {
    add(what, stop) {
      stops.unshift({ what, stop });
    },
    async stopAll() {
      const said = [];
      for (const { what, stop } of stops) {
        try {
          const outcome = await stop();
          said.push(outcome === undefined ? what : `${what} (${outcome})`);
        } catch (error) {
          said.push(`${what} (failed to stop: ${error instanceof Error ? error.message : error})`);
        }
      }
      if (said.length > 0) console.log(`Stopped: ${said.join(', ')}.`);
    },
  };
}

async function run(python, signal, stops) {
  const dir = mkdtempSync(join(tmpdir(), 'faceverify-relay-quickstart-'));
  stops.add('temporary folder', () => rmSync(dir, { recursive: true, force: true }));

  // Each start is awaited to its end, even on Ctrl+C, so that what started is also stopped.
  const redisServer = await startRedisServer(dir);
  stops.add('redis-server', () => redisServer.stop());
  signal.throwIfAborted();
  step(
    1,
    `redis-server on ${redisServer.url}: a temporary one, for the relay's store and its stream`,
  );

  const emulator = await startEmulator();
  stops.add('emulator', () => emulator.close());
  signal.throwIfAborted();
  step(2, `the emulator (the service) at ${emulator.url}`);

  const token = randomBytes(32).toString('hex');
  let relayReady;
  const relayLine = new Promise((resolve) => {
    relayReady = resolve;
  });
  const relay = startChild(
    process.execPath,
    [RELAY_BIN],
    relayEnv(emulator, redisServer.url, token),
    (line) => {
      if (line.startsWith('faceverify-relay: webhook at ')) relayReady(line);
    },
  );
  stops.add('relay', () => relay.stop());
  const relayFailed = relay.exited.then((code) => {
    throw new QuickstartError(`the relay exited (${code}) before it served:\n${relay.output()}`);
  });
  const serving = await within(
    Promise.race([relayLine, relayFailed]),
    'the relay starting',
    signal,
  );
  const [, webhookUrl, apiUrl] = /webhook at (\S+), internal API at (\S+),/.exec(serving) ?? [];
  emulator.setCallbackUrl(webhookUrl);
  step(3, serving);
  console.log('    the emulator now sends its webhooks to the relay');

  const lines = [];
  let firstLine;
  const consumerLine = new Promise((resolve) => {
    firstLine = resolve;
  });
  const consumer = startChild(
    python,
    [
      '-u',
      CONSUMER,
      '--redis',
      redisServer.url,
      '--stream',
      STREAM,
      '--db',
      join(dir, 'results.sqlite3'),
    ],
    process.env,
    (line) => {
      lines.push(line);
      console.log(`    │ consumer: ${line}`);
      firstLine(line);
    },
  );
  stops.add('Python consumer', () => consumer.stop());
  const consumerFailed = consumer.exited.then((code) => {
    throw new QuickstartError(`the Python consumer exited (${code}):\n${consumer.output()}`);
  });
  // Its stop at the end rejects this too: handled here when no step waits on it any more.
  consumerFailed.catch(() => {});
  step(
    4,
    `the Python consumer (${python} consumer.py), reading the stream ${STREAM} as group "backend"`,
  );

  const response = await within(
    fetch(`${apiUrl}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ externalUserId: USER, redirectUrl: 'http://127.0.0.1:3000/back' }),
      signal,
    }),
    'POST /sessions',
    signal,
  );
  if (response.status !== 201) {
    throw new QuickstartError(
      `POST /sessions answered ${response.status}: ${await response.text()}`,
    );
  }
  const session = await response.json();
  step(
    5,
    `the backend started a session for ${USER} through the relay (POST ${apiUrl}/sessions, 201)`,
  );

  await within(
    emulator.completeSession(session.token, 'verified'),
    'completing the session',
    signal,
  );
  step(
    6,
    'the user completed it on the hosted page: verified; the emulator sends the signed webhook',
  );

  const line = await within(
    Promise.race([consumerLine, consumerFailed]),
    "the consumer's line",
    signal,
  );
  step(7, `the consumer printed: ${line}`);

  // Once: the webhook is answered, and nothing more is on its way to the stream.
  await within(emulator.webhooksSettled(), 'the webhook being answered', signal);
  const redis = new Redis(redisServer.url);
  const entries = await within(redis.xlen(STREAM), 'reading the stream', signal).finally(() =>
    redis.disconnect(),
  );
  const metrics = await (await fetch(`${apiUrl}/metrics`)).text();
  const delivered =
    /faceverify_relay_sink_results_total\{sink="redis",outcome="delivered"\} (\d+)/.exec(
      metrics,
    )?.[1];
  if (
    entries !== 1 ||
    delivered !== '1' ||
    lines.length !== 1 ||
    !line.startsWith(`verified ${USER} evt_`)
  ) {
    throw new QuickstartError(
      `expected one result, once: the stream holds ${entries}, the relay delivered ${delivered}, the consumer printed ${lines.length} line(s)`,
    );
  }
  step(8, `once: the stream holds 1 entry, the relay's metrics say 1 delivered to redis`);
}

async function main() {
  const opts = options();
  if (opts.help) {
    console.log(USAGE);
    return 0;
  }
  const controller = new AbortController();
  const interrupted = new QuickstartError('interrupted');
  const onSignal = () => {
    // A second Ctrl+C while stopping means "now"; the children are in groups of their own.
    if (controller.signal.aborted) process.exit(INTERRUPTED_EXIT_CODE);
    console.log('\nStopping…');
    controller.abort(interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  console.log(
    'faceverify relay quickstart: a verified result, from the service to a Python program\n',
  );
  const stops = stopList();
  let code = 0;
  try {
    requireRedisServer();
    await run(pythonWithRedis(opts.python), controller.signal, stops);
  } catch (error) {
    code = controller.signal.aborted ? INTERRUPTED_EXIT_CODE : 1;
    if (!controller.signal.aborted) {
      console.error(
        `\nThe quickstart failed: ${error instanceof QuickstartError ? error.message : error instanceof Error ? (error.stack ?? error.message) : error}`,
      );
    }
  }
  await stops.stopAll();
  console.log(code === 0 ? `\nDone in ${seconds()}, end to end.` : `\nStopped after ${seconds()}.`);
  return code;
}

process.exit(await main());
