#!/usr/bin/env node
import { createHmac, hash, timingSafeEqual } from 'node:crypto';
// How long a webhook of a tracked session waits for its answer when every round trip to the
// store costs a fixed delay: a Receiver on RedisStore and on PostgresStore (real servers,
// started here) reached through a loopback proxy that adds 10 ms or 50 ms per request/response
// turn, against a hand-written receiver that keeps the same record in the same store with one
// round trip (one Redis SET NX, one PostgreSQL INSERT ... ON CONFLICT DO NOTHING) through a
// proxy of the same delay.
//
// Webhooks go one at a time, the two sides alternating (which goes first alternates too), so
// the answer time of each is its own. Every webhook's store round trips are counted on the
// client while it is answered, with the meter the round-trip tests use (RoundTripMeter from
// @faceverify/test-support: requests in flight together are one round trip), and set against
// the time: p50 / (round trips x delay) near 1 means the round trips are the whole wait.
//
// usage: node --import tsx bench/latency.bench.mjs [--quick] [--webhooks=N] [--delays=10,50]
//          [--stores=redis,postgres]
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { RoundTripMeter } from '@faceverify/test-support/round-trips';
import { startPostgresServer, startRedisServer } from '@faceverify/test-support/servers';
import { Redis } from 'ioredis';
import pg from 'pg';
import { machineInfo, median, packageVersions, table, writeResults } from './harness.mjs';
import { startDelayProxy } from './lib/delay-proxy.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const entry = (name, file = 'index') =>
  pathToFileURL(fileURLToPath(new URL(`../packages/${name}/dist/${file}.js`, import.meta.url)))
    .href;

const SECRET = 'whsec_bench_latency_4d2f8a1c6e0b';
const DAY_S = 24 * 60 * 60;
/** Webhooks of each side answered before the measured ones: scripts loaded, statements known. */
const WARM_UP = 5;
/** The round trips of this path as the round-trip tests pin them (BENCHMARKS.md's table). */
const PINNED = { redis: 3, postgres: 3 };
const STORE_NAMES = { redis: 'RedisStore', postgres: 'PostgresStore' };

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      webhooks: { type: 'string' },
      delays: { type: 'string' },
      stores: { type: 'string' },
    },
    // run-all passes every bench the same arguments; the ones this bench does not know are not its.
    strict: false,
  });
  const quick = values.quick === true;
  return {
    webhooks: values.webhooks === undefined ? (quick ? 20 : 200) : Number(values.webhooks),
    delaysMs: values.delays ? String(values.delays).split(',').map(Number) : [10, 50],
    stores: values.stores ? String(values.stores).split(',') : ['redis', 'postgres'],
  };
}

/** Nearest-rank percentile of `values` (p in 0..100). */
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

// ---- metering, as the round-trip tests do it (packages/*/test/round-trips.test.ts) ------------

/** Notes every command `redis` sends in `meter` (a command retried by ioredis counts once). */
function meteredRedis(redis, meter) {
  const sendCommand = redis.sendCommand.bind(redis);
  const seen = new WeakSet();
  redis.sendCommand = (command, ...rest) => {
    if (!seen.has(command)) {
      seen.add(command);
      const answered = meter.send(command.name);
      command.promise.then(answered, answered);
    }
    return sendCommand(command, ...rest);
  };
  return redis;
}

/**
 * Notes each statement a pooled connection sends (node-postgres sends one at a time on a
 * connection, so one queued behind another waits for its answer); a connection opened is
 * noted as `connect`.
 */
function meterPool(pool, meter) {
  pool.on('connect', (client) => {
    meter.send('connect')();
    const query = client.query.bind(client);
    client.query = (...args) => {
      const text = typeof args[0] === 'string' ? args[0] : args[0]?.text;
      const answered = meter.send(String(text).trim().split(/\s+/)[0].toUpperCase(), client);
      const callback = args.at(-1);
      if (typeof callback === 'function') {
        args[args.length - 1] = (...results) => {
          answered();
          return callback(...results);
        };
        return query(...args);
      }
      const answer = query(...args);
      answer.then(answered, answered);
      return answer;
    };
  });
  return pool;
}

// ---- the webhooks ----------------------------------------------------------------------------

/** A signed `verification.completed` webhook of `user`, naming `token` when given. */
function webhook(user, token) {
  const payload = {
    event: 'verification.completed',
    status: 'verified',
    external_user_id: user,
    confidence: 0.9731,
    livenessPassed: true,
    duplicate: false,
    risk: 'low',
    reason: null,
    frontImageUrl: 'https://files.example.com/sessions/3f9a1c0e/front.jpg',
    ...(token ? { session_token: token } : {}),
  };
  const body = Buffer.from(JSON.stringify(payload));
  const signature = createHmac('sha256', SECRET).update(body).digest('hex');
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
    body,
  };
}

/** The service as a Receiver that only tracks sessions needs it: never asked on this path. */
const stubService = {
  createSession: () => Promise.reject(new Error('not used by this benchmark')),
  getSession: async (token) => ({ token, status: 'pending', raw: {} }),
  check: async () => {},
};

/**
 * The hand-written receiver: verify, parse, keep the delivery's record with one round trip
 * (`keep` resolves whether it was new), run the handler, answer.
 */
function handWritten(keep, onResult) {
  return async ({ headers, body }) => {
    const header = headers['x-webhook-signature'];
    const expected = Buffer.from(typeof header === 'string' ? header : '', 'hex');
    const actual = createHmac('sha256', SECRET).update(body).digest();
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
      return { status: 401, body: '{"error":"signature_invalid"}' };
    }
    const payload = JSON.parse(body.toString('utf8'));
    const digest = hash('sha256', body, 'hex');
    const record = JSON.stringify({
      externalUserId: payload.external_user_id,
      state: 'completed',
      receivedAt: Date.now(),
      payload,
    });
    if (!(await keep(digest, payload.external_user_id, record))) {
      return { status: 200, body: '{"received":true,"duplicate":true}' };
    }
    await onResult(payload);
    return { status: 200, body: '{"received":true}' };
  };
}

// ---- one store -------------------------------------------------------------------------------

/**
 * What one store needs for a cell: `ours(port, meter)` (a store) and `handWritten(port,
 * meter)` (the function keeping a delivery's record), each on clients of its own through the
 * proxy on `port`, metered by `meter`; `endCell()` closes the cell's clients, `close()` the rest.
 */
async function redisSetup() {
  const { RedisStore } = await import(entry('redis'));
  const server = await startRedisServer();
  let clients = [];
  const client = (port, meter) => {
    const redis = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 2 });
    redis.on('error', () => {});
    clients.push(redis);
    return meteredRedis(redis, meter);
  };
  const admin = new Redis(server.url);
  const version = (await admin.info('server')).match(/redis_version:(\S+)/)?.[1] ?? null;
  await admin.quit();
  let cell = 0;
  const endCell = async () => {
    const ending = clients;
    clients = [];
    await Promise.all(ending.map((redis) => redis.quit().catch(() => redis.disconnect())));
  };
  return {
    version,
    targetPort: server.port,
    async ours(port, meter) {
      return new RedisStore({ redis: client(port, meter), prefix: `lat${++cell}:` });
    },
    async handWritten(port, meter) {
      const redis = client(port, meter);
      const prefix = `hw${++cell}:`;
      return async (digest, _user, record) =>
        (await redis.set(`${prefix}${digest}`, record, 'EX', DAY_S, 'NX')) === 'OK';
    },
    endCell,
    async close() {
      await endCell();
      await server.stop();
    },
  };
}

async function postgresSetup() {
  const { PostgresStore } = await import(entry('postgres'));
  const server = await startPostgresServer();
  const direct = new pg.Pool({ connectionString: server.url(), max: 2 });
  direct.on('error', () => {});
  const version = (await direct.query('SHOW server_version')).rows[0].server_version;
  let pools = [];
  /** A pool through the proxy on `port`, its connections opened (and metered) up front. */
  const pool = async (port, meter) => {
    const url = new URL(server.url());
    url.port = String(port);
    // Idle connections are kept: a path that needs a second one must not open it while timed.
    const proxied = new pg.Pool({ connectionString: url.href, max: 10, idleTimeoutMillis: 0 });
    proxied.on('error', () => {});
    pools.push(proxied);
    meterPool(proxied, meter);
    await Promise.all(Array.from({ length: 6 }, () => proxied.query('SELECT 1')));
    return proxied;
  };
  let cell = 0;
  const endCell = async () => {
    const ending = pools;
    pools = [];
    await Promise.all(ending.map((p) => p.end().catch(() => {})));
  };
  return {
    version,
    targetPort: server.port,
    async ours(port, meter) {
      const prefix = `lat${++cell}_`;
      // Migrated directly, not through the proxy: only the webhooks are timed.
      await new PostgresStore({ pool: direct, prefix }).migrate();
      return new PostgresStore({ pool: await pool(port, meter), prefix });
    },
    async handWritten(port, meter) {
      const table = `hw${++cell}_deliveries`;
      await direct.query(
        `CREATE TABLE ${table} (digest text PRIMARY KEY, external_user_id text NOT NULL, record jsonb NOT NULL, expires_at bigint NOT NULL)`,
      );
      const proxied = await pool(port, meter);
      const insert = `INSERT INTO ${table} (digest, external_user_id, record, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (digest) DO NOTHING`;
      return async (digest, user, record) =>
        (await proxied.query(insert, [digest, user, record, Date.now() + DAY_S * 1000]))
          .rowCount === 1;
    },
    endCell,
    async close() {
      await endCell();
      await direct.end();
      await server.stop();
    },
  };
}

/** One store at one delay: `webhooks` of each side, alternating, after a warm-up. */
async function measureCell({ store, setup, delayMs, webhooks, core }) {
  const proxies = {
    ours: await startDelayProxy({ targetPort: setup.targetPort, delayMs }),
    handWritten: await startDelayProxy({ targetPort: setup.targetPort, delayMs }),
  };
  const meters = { ours: new RoundTripMeter(), handWritten: new RoundTripMeter() };
  let handled = 0;
  const onResult = async () => {
    handled++;
  };
  try {
    const receiver = core
      .createReceiver({
        secret: SECRET,
        client: stubService,
        store: await setup.ours(proxies.ours.port, meters.ours),
        logger: false,
      })
      .on('verification.completed', onResult);
    const keep = await setup.handWritten(proxies.handWritten.port, meters.handWritten);
    const sides = {
      ours: (request) => receiver.receive(request),
      handWritten: handWritten(keep, onResult),
    };
    const tag = `${store}${delayMs}`;
    const total = WARM_UP + webhooks;
    // Every session ours is sent a webhook for is tracked first (untimed), ten at a time.
    const tokens = Array.from({ length: total }, (_, i) => `tok_${tag}_${i}`);
    for (let i = 0; i < total; i += 10) {
      await Promise.all(
        tokens.slice(i, i + 10).map((token, j) => receiver.track(token, `user_${tag}_${i + j}`)),
      );
    }
    const requests = {
      ours: tokens.map((token, i) => webhook(`user_${tag}_${i}`, token)),
      handWritten: tokens.map((_, i) => webhook(`user_hw_${tag}_${i}`)),
    };
    const samples = { ours: [], handWritten: [] };
    for (let i = 0; i < total; i++) {
      const order = i % 2 === 0 ? ['ours', 'handWritten'] : ['handWritten', 'ours'];
      for (const side of order) {
        const meter = meters[side];
        await meter.settled();
        meter.take();
        const turnsBefore = proxies[side].turns();
        const before = handled;
        const start = performance.now();
        const answer = await sides[side](requests[side][i]);
        const ms = performance.now() - start;
        await meter.settled();
        const trips = meter.take();
        if (answer.status !== 200 || handled !== before + 1) {
          throw new Error(
            `${store} ${delayMs} ms, ${side}: webhook ${i} answered ${answer.status} ${answer.body}, handled ${handled - before}`,
          );
        }
        if (i < WARM_UP) continue;
        samples[side].push({
          ms,
          roundTrips: trips.inTurn,
          requests: trips.requests,
          turns: proxies[side].turns() - turnsBefore,
          sequence: trips.sequence,
        });
      }
    }
    await receiver.stop();
    const summary = (side) => {
      const list = samples[side];
      const ms = list.map((s) => s.ms);
      const trips = list.map((s) => s.roundTrips);
      const p50Ms = percentile(ms, 50);
      const roundTrips = median(trips);
      return {
        p50Ms: Number(p50Ms.toFixed(2)),
        p99Ms: Number(percentile(ms, 99).toFixed(2)),
        minMs: Number(Math.min(...ms).toFixed(2)),
        maxMs: Number(Math.max(...ms).toFixed(2)),
        roundTrips,
        roundTripsRange: [Math.min(...trips), Math.max(...trips)],
        requests: median(list.map((s) => s.requests)),
        proxyTurns: median(list.map((s) => s.turns)),
        p50OverFloor: Number((p50Ms / (roundTrips * delayMs)).toFixed(3)),
        // The requests of the first measured webhook, as `<round trip>:<command>`.
        sequence: list[0].sequence,
        samplesMs: ms.map((x) => Number(x.toFixed(2))),
      };
    };
    const row = {
      store,
      delayMs,
      webhooks,
      pinnedRoundTrips: PINNED[store],
      ours: summary('ours'),
      handWritten: summary('handWritten'),
    };
    console.log(
      `  ${STORE_NAMES[store]}, ${delayMs} ms per round trip: ours p50 ${row.ours.p50Ms} ms / p99 ${row.ours.p99Ms} ms in ${row.ours.roundTrips} round trips ` +
        `(${row.ours.roundTripsRange.join('–')}; the tests pin ${PINNED[store]}); hand-written p50 ${row.handWritten.p50Ms} / p99 ${row.handWritten.p99Ms} ms in ${row.handWritten.roundTrips}`,
    );
    return row;
  } finally {
    await setup.endCell();
    await proxies.ours.close();
    await proxies.handWritten.close();
  }
}

async function main() {
  const settings = options();
  for (const name of ['core', ...settings.stores]) {
    if (!existsSync(new URL(`../packages/${name}/dist/index.js`, import.meta.url))) {
      console.error(
        `packages/${name}/dist is missing: run \`pnpm build\` first (\`pnpm bench:latency\` does).`,
      );
      process.exit(1);
    }
  }
  const machine = machineInfo(ROOT);
  const core = await import(entry('core'));
  console.log(
    `latency: a webhook's answer time with a fixed delay per store round trip (loopback proxy)\n` +
      `${machine.cpu} x${machine.cpuCount}, Node ${machine.node}; ${settings.webhooks} webhooks per side and cell, ` +
      `one at a time, alternating; delays ${settings.delaysMs.join(', ')} ms\n`,
  );
  const rows = [];
  const versions = {};
  for (const store of settings.stores) {
    const setup = store === 'redis' ? await redisSetup() : await postgresSetup();
    versions[store] = setup.version;
    try {
      for (const delayMs of settings.delaysMs) {
        rows.push(await measureCell({ store, setup, delayMs, webhooks: settings.webhooks, core }));
      }
    } finally {
      await setup.close();
    }
  }
  console.log(
    `\n${table(
      [
        'store',
        'delay ms',
        'round trips',
        'p50 ours ms',
        'p99 ours ms',
        'p50 hand-written ms',
        'p99 hand-written ms',
        'p50 / (trips x delay)',
        'hand-written p50 / delay',
      ],
      rows.map((r) => [
        STORE_NAMES[r.store],
        String(r.delayMs),
        String(r.ours.roundTrips),
        r.ours.p50Ms.toFixed(1),
        r.ours.p99Ms.toFixed(1),
        r.handWritten.p50Ms.toFixed(1),
        r.handWritten.p99Ms.toFixed(1),
        r.ours.p50OverFloor.toFixed(2),
        r.handWritten.p50OverFloor.toFixed(2),
      ]),
    )}`,
  );
  const file = writeResults(BENCH_DIR, 'latency', {
    benchmark: 'latency',
    description:
      "answer time of a webhook naming its tracked session (receiver.receive(), built dist, real clock, a stub service never asked) on RedisStore and PostgresStore reached through a loopback TCP proxy adding a fixed delay per request/response turn, vs a hand-written receiver (createHmac, JSON.parse, one SET NX / INSERT ... ON CONFLICT DO NOTHING of the delivery's record, the handler) through a proxy of the same delay; webhooks one at a time, the sides alternating; round trips counted per webhook on the client with RoundTripMeter (in flight together = one), as the round-trip tests count them; p50 / (round trips x delay) is the share of the wait the round trips explain.",
    machine,
    versions: {
      ...packageVersions(ROOT, ['ioredis', 'pg']),
      ...(versions.redis ? { redis: versions.redis } : {}),
      ...(versions.postgres ? { postgres: versions.postgres } : {}),
    },
    settings,
    rows,
  });
  console.log(`results: ${file.slice(ROOT.length)}`);
}

await main();
