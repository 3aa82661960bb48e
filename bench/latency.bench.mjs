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
// The concurrent case is the store in another region: every chunk sent to it held 50-200 ms
// (`--chunk-delay`), drawn anew for each chunk, 200 sessions (`--sessions`) of 2 receiver
// instances (`--instances`, processes of their own with Express, the defaults and a sweep, a
// pool of `--pool-max` connections on PostgreSQL, a transactional handler with
// `--transactional`) behind one balancer (PostgreSQL once per `--pipelined-connections` value:
// PostgresStore's default, and 0, each statement on a connection of its own), every session completed
// at the emulator at once so that it sends their webhooks concurrently, as the service does.
// Each answer is timed at the balancer, from the request's arrival to the answer's end; the
// emulator gives up after the service's 10 s, and an answer later than that is counted.
//
// usage: node --import tsx bench/latency.bench.mjs [--quick] [--webhooks=N] [--delays=10,50]
//          [--stores=redis,postgres] [--cases=serial,concurrent] [--sessions=N]
//          [--instances=N] [--chunk-delay=MIN-MAX] [--pool-max=N] [--transactional]
//          [--pipelined-connections=default,0]
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { RoundTripMeter } from '@faceverify/test-support/round-trips';
import { startPostgresServer, startRedisServer } from '@faceverify/test-support/servers';
import { Redis } from 'ioredis';
import pg from 'pg';
import { machineInfo, median, packageVersions, table, writeResults } from './harness.mjs';
import { startChild } from './lib/child-process.mjs';
import { startDelayProxy } from './lib/delay-proxy.mjs';
import { startTimingBalancer } from './lib/timing-balancer.mjs';

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
/** The concurrent case's receiver instance (a process each). */
const INSTANCE = fileURLToPath(new URL('./lib/latency-instance.mjs', import.meta.url));
/** How long the service waits for a webhook's answer before it gives up. */
const SENDER_TIMEOUT_MS = 10_000;
/** The longest the concurrent case waits for its answers: it ends by itself. */
const WAIT_MS = 120_000;
/** Webhooks per instance answered, one at a time, before the burst. */
const BURST_WARM_UP = 2;
/** Issue 45's goal for PostgreSQL far away: the median answer within this, none past the sender's. */
const POSTGRES_P50_GOAL_MS = 2_000;
/** Sessions started at once before the burst (untimed), on a pool of this size. */
const STARTER_CONCURRENCY = 8;

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      webhooks: { type: 'string' },
      delays: { type: 'string' },
      stores: { type: 'string' },
      cases: { type: 'string' },
      sessions: { type: 'string' },
      instances: { type: 'string' },
      'chunk-delay': { type: 'string' },
      'pool-max': { type: 'string' },
      'pipelined-connections': { type: 'string' },
      transactional: { type: 'boolean', default: false },
    },
    // run-all passes every bench the same arguments; the ones this bench does not know are not its.
    strict: false,
  });
  const quick = values.quick === true;
  return {
    webhooks: values.webhooks === undefined ? (quick ? 20 : 200) : Number(values.webhooks),
    delaysMs: values.delays ? String(values.delays).split(',').map(Number) : [10, 50],
    stores: values.stores ? String(values.stores).split(',') : ['redis', 'postgres'],
    cases: values.cases ? String(values.cases).split(',') : ['serial', 'concurrent'],
    sessions: values.sessions === undefined ? (quick ? 50 : 200) : Number(values.sessions),
    instances: values.instances === undefined ? 2 : Number(values.instances),
    chunkDelayMs: String(values['chunk-delay'] ?? '50-200')
      .split('-')
      .map(Number),
    // node-postgres's own default.
    poolMax: values['pool-max'] === undefined ? 10 : Number(values['pool-max']),
    // PostgresStore's `pipelinedConnections`, one burst each: its default (half the pool), and
    // 0, every statement on a connection of its own as before pipelining.
    pipelinedConnections: String(values['pipelined-connections'] ?? 'default,0')
      .split(',')
      .map((value) => (value === 'default' ? null : Number(value))),
    transactional: values.transactional === true,
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
    urlThrough: (port) => `redis://127.0.0.1:${port}`,
    migrate: async () => {},
    /** A store of `prefix` on a connection of its own, straight to the server (untimed work). */
    direct(prefix) {
      const redis = new Redis(server.url);
      redis.on('error', () => {});
      return { store: new RedisStore({ redis, prefix }), close: () => redis.quit() };
    },
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
  /** The server's URL with the port of a proxy in front of it. */
  const urlThrough = (port) => {
    const url = new URL(server.url());
    url.port = String(port);
    return url.href;
  };
  /** A pool through the proxy on `port`, its connections opened (and metered) up front. */
  const pool = async (port, meter) => {
    // Idle connections are kept: a path that needs a second one must not open it while timed.
    const proxied = new pg.Pool({
      connectionString: urlThrough(port),
      max: 10,
      idleTimeoutMillis: 0,
    });
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
    urlThrough,
    migrate: (prefix) => new PostgresStore({ pool: direct, prefix }).migrate(),
    /** A store of `prefix` on a pool of its own, straight to the server (untimed work). */
    direct(prefix) {
      const own = new pg.Pool({ connectionString: server.url(), max: STARTER_CONCURRENCY });
      own.on('error', () => {});
      return { store: new PostgresStore({ pool: own, prefix }), close: () => own.end() };
    },
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

// ---- the concurrent case: a store far away, a burst of webhooks, several instances --------

/** Starts `count` sessions through `starter`, STARTER_CONCURRENCY at a time; their tokens. */
async function startSessions(starter, count, tag) {
  const tokens = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      tokens[i] = (await starter.startVerification({ externalUserId: `user_${tag}_${i}` })).token;
    }
  };
  await Promise.all(Array.from({ length: STARTER_CONCURRENCY }, worker));
  return tokens;
}

/** Resolves once `balancer` has noted `count` answers, or after `withinMs`: how many it has. */
async function answered(balancer, count, withinMs) {
  const deadline = performance.now() + withinMs;
  while (balancer.answers.length < count && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return balancer.answers.length;
}

/** The most answers awaited at once: of `answers`, the most whose times overlap. */
function mostInFlight(answers) {
  const changes = answers.flatMap(({ startedAt, ms }) => [
    [startedAt, 1],
    [startedAt + ms, -1],
  ]);
  changes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let inFlight = 0;
  let most = 0;
  for (const [, change] of changes) {
    inFlight += change;
    most = Math.max(most, inFlight);
  }
  return most;
}

/** The sum of each field over `counts` (objects of numbers). */
function sumOf(counts) {
  const sums = {};
  for (const each of counts) {
    for (const [key, n] of Object.entries(each)) sums[key] = (sums[key] ?? 0) + n;
  }
  return sums;
}

/** Issue 45's goal, judged on PostgresStore with its defaults, when that row was measured. */
function concurrentGoals(rows) {
  const postgres = rows.find((r) => r.store === 'postgres' && r.pipelinedConnections === null);
  if (!postgres) return {};
  return {
    postgresFarAway: {
      description: `PostgreSQL behind ${postgres.chunkDelayMs.join('-')} ms per chunk, ${postgres.sessions} sessions, ${postgres.instances} instances, PostgresStore's defaults: webhook p50 at most ${POSTGRES_P50_GOAL_MS / 1000} s and none past ${SENDER_TIMEOUT_MS / 1000} s`,
      measured: {
        'p50 ms': postgres.p50Ms,
        [`past ${SENDER_TIMEOUT_MS / 1000} s`]: postgres.pastSenderTimeout,
      },
      met: postgres.p50Ms <= POSTGRES_P50_GOAL_MS && postgres.pastSenderTimeout === 0,
    },
  };
}

/** A row of the concurrent case by its store, and PostgresStore's `pipelinedConnections`. */
function concurrentName({ store, pipelinedConnections }) {
  const given =
    pipelinedConnections === null ? '' : ` (pipelinedConnections ${pipelinedConnections})`;
  return `${STORE_NAMES[store]}${given}`;
}

/** The store calls of every instance, per method: calls, mean and longest ms. */
function storeCallsOf(stats) {
  const methods = {};
  for (const instance of stats) {
    for (const [method, { calls, totalMs, maxMs }] of Object.entries(instance.storeCalls)) {
      const row = methods[method] ?? { calls: 0, totalMs: 0, maxMs: 0 };
      row.calls += calls;
      row.totalMs += totalMs;
      row.maxMs = Math.max(row.maxMs, maxMs);
      methods[method] = row;
    }
  }
  return Object.fromEntries(
    Object.entries(methods).map(([method, { calls, totalMs, maxMs }]) => [
      method,
      { calls, meanMs: Math.round(totalMs / calls), maxMs: Math.round(maxMs) },
    ]),
  );
}

/**
 * One store behind a delay per chunk drawn from `chunkDelayMs`: `instances` receiver
 * processes behind one balancer, `sessions` sessions started, then every one completed at
 * the emulator at once, so that it sends their webhooks concurrently, as the service does.
 * Each answer's time is taken at the balancer; the emulator gives up at SENDER_TIMEOUT_MS as
 * the service does, and the instance's answer is still timed to its end.
 */
async function measureConcurrent({
  store,
  setup,
  settings,
  pipelinedConnections,
  core,
  startEmulator,
  OUTCOMES,
}) {
  const [minMs, maxMs] = settings.chunkDelayMs;
  const proxy = await startDelayProxy({
    targetPort: setup.targetPort,
    delayMs: () => minMs + Math.random() * (maxMs - minMs),
    perChunk: true,
  });
  const prefix = `burst_${store}_${pipelinedConnections ?? 'default'}_`;
  await setup.migrate(prefix);
  const emulator = await startEmulator({
    seed: 'bench-latency',
    rateLimits: {
      verify: { limit: 1_000_000_000, windowMs: 1 },
      complete: { limit: 1_000_000_000, windowMs: 1 },
    },
    webhookTimeoutMs: SENDER_TIMEOUT_MS,
  });
  const starterStore = setup.direct(prefix);
  const instances = [];
  let balancer;
  // The instances reach the service through this, so that its answer times are known.
  const service = await startTimingBalancer([emulator.url]);
  try {
    for (let i = 0; i < settings.instances; i++) {
      const config = {
        store,
        url: setup.urlThrough(proxy.port),
        prefix,
        poolMax: settings.poolMax,
        pipelinedConnections,
        secret: emulator.signingSecret,
        apiKey: emulator.apiKey,
        baseUrl: service.url,
        transactional: settings.transactional,
      };
      instances.push(await startChild(INSTANCE, [JSON.stringify(config)]));
    }
    balancer = await startTimingBalancer(instances.map(({ ready }) => ready.url));
    emulator.setCallbackUrl(`${balancer.url}/webhooks/verification`);
    const starter = core.createReceiver({
      secret: emulator.signingSecret,
      client: {
        apiKey: emulator.apiKey,
        baseUrl: emulator.url,
        createSessionsPerMinute: 1_000_000_000,
      },
      store: starterStore.store,
      logger: false,
    });
    const complete = (tokens) =>
      Promise.all(
        tokens.map((token, i) => emulator.completeSession(token, OUTCOMES[i % OUTCOMES.length])),
      );
    // A few webhooks per instance first, one at a time: code loaded, statements prepared.
    const warmUp = await startSessions(
      starter,
      BURST_WARM_UP * settings.instances,
      `warm_${store}`,
    );
    for (const [i, token] of warmUp.entries()) {
      await complete([token]);
      await answered(balancer, i + 1, WAIT_MS);
    }
    await emulator.webhooksSettled();
    balancer.answers.length = 0;
    service.answers.length = 0;
    await Promise.all(instances.map((instance) => instance.ask('reset')));
    const failedBefore = emulator.stats().webhooks.failed;
    const tokens = await startSessions(starter, settings.sessions, `burst_${store}`);
    const began = performance.now();
    await complete(tokens);
    const count = await answered(balancer, tokens.length, WAIT_MS);
    const burstMs = performance.now() - began;
    await emulator.webhooksSettled();
    const stats = await Promise.all(instances.map((instance) => instance.ask('stats')));
    const ms = balancer.answers.map((answer) => answer.ms);
    const statuses = {};
    for (const { status } of balancer.answers) statuses[status] = (statuses[status] ?? 0) + 1;
    const statements = sumOf(stats.map((instance) => instance.statements));
    const statementCount = Object.values(statements).reduce((a, b) => a + b, 0);
    const serviceMs = service.answers.map((answer) => answer.ms);
    const row = {
      store,
      sessions: settings.sessions,
      instances: settings.instances,
      chunkDelayMs: settings.chunkDelayMs,
      poolMax: store === 'postgres' ? settings.poolMax : null,
      pipelinedConnections: store === 'postgres' ? pipelinedConnections : null,
      transactional: store === 'postgres' && settings.transactional,
      answers: count,
      statuses,
      p50Ms: Math.round(percentile(ms, 50)),
      p99Ms: Math.round(percentile(ms, 99)),
      maxMs: Math.round(Math.max(...ms)),
      pastSenderTimeout: ms.filter((x) => x > SENDER_TIMEOUT_MS).length,
      senderGaveUp: emulator.stats().webhooks.failed - failedBefore,
      burstMs: Math.round(burstMs),
      mostInFlight: mostInFlight(balancer.answers),
      delivered: sumOf(stats.map((instance) => instance.delivered)),
      poolWaitingMax: stats.map((instance) => instance.poolWaitingMax),
      statementsPerAnswer:
        store === 'postgres' ? Number((statementCount / count).toFixed(2)) : null,
      statements,
      storeCalls: storeCallsOf(stats),
      serviceCalls: {
        calls: serviceMs.length,
        p50Ms: Math.round(percentile(serviceMs, 50) ?? 0),
        maxMs: Math.round(Math.max(0, ...serviceMs)),
      },
      logged: sumOf(stats.map((instance) => instance.lines)),
      samplesMs: ms.map(Math.round),
    };
    console.log(
      `  ${concurrentName(row)}, ${minMs}-${maxMs} ms per chunk, ${settings.sessions} sessions, ${settings.instances} instances: ` +
        `p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, max ${row.maxMs} ms; ${row.pastSenderTimeout} of ${count} past ${SENDER_TIMEOUT_MS / 1000} s; ` +
        `at most ${row.mostInFlight} awaited at once, the last answered ${(row.burstMs / 1000).toFixed(1)} s after the completions began`,
    );
    return row;
  } finally {
    await Promise.all(instances.map((instance) => instance.stop()));
    await balancer?.close();
    await service.close();
    await emulator.close();
    await starterStore.close();
    await proxy.close();
  }
}

async function main() {
  const settings = options();
  for (const name of ['core', 'express', 'emulator', ...settings.stores]) {
    if (!existsSync(new URL(`../packages/${name}/dist/index.js`, import.meta.url))) {
      console.error(
        `packages/${name}/dist is missing: run \`pnpm build\` first (\`pnpm bench:latency\` does).`,
      );
      process.exit(1);
    }
  }
  const machine = machineInfo(ROOT);
  const core = await import(entry('core'));
  const { startEmulator, OUTCOMES } = await import(entry('emulator'));
  const serial = settings.cases.includes('serial');
  const concurrent = settings.cases.includes('concurrent');
  console.log(
    `latency: a webhook's answer time with a delay per store round trip (loopback proxy)\n` +
      `${machine.cpu} x${machine.cpuCount}, Node ${machine.node}` +
      (serial
        ? `; ${settings.webhooks} webhooks per side and cell, one at a time, alternating; delays ${settings.delaysMs.join(', ')} ms`
        : '') +
      (concurrent
        ? `; concurrently: ${settings.sessions} sessions, ${settings.instances} instances, ${settings.chunkDelayMs.join('-')} ms per chunk`
        : '') +
      '\n',
  );
  const rows = [];
  const concurrentRows = [];
  const versions = {};
  for (const store of settings.stores) {
    const setup = store === 'redis' ? await redisSetup() : await postgresSetup();
    versions[store] = setup.version;
    try {
      if (serial) {
        for (const delayMs of settings.delaysMs) {
          rows.push(
            await measureCell({ store, setup, delayMs, webhooks: settings.webhooks, core }),
          );
        }
      }
      if (concurrent) {
        for (const pipelinedConnections of store === 'postgres'
          ? settings.pipelinedConnections
          : [null]) {
          const burst = { store, setup, settings, core, startEmulator, OUTCOMES };
          concurrentRows.push(await measureConcurrent({ ...burst, pipelinedConnections }));
        }
      }
    } finally {
      await setup.close();
    }
  }
  const serverVersions = {
    ...packageVersions(ROOT, ['ioredis', 'pg', 'express']),
    ...(versions.redis ? { redis: versions.redis } : {}),
    ...(versions.postgres ? { postgres: versions.postgres } : {}),
  };
  if (serial) {
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
      versions: serverVersions,
      settings,
      rows,
    });
    console.log(`results: ${file.slice(ROOT.length)}`);
  }
  if (concurrent) {
    console.log(
      `\n${table(
        [
          'store',
          'delay per chunk ms',
          'sessions',
          'instances',
          'answers',
          'most at once',
          'p50 ms',
          'p99 ms',
          'max ms',
          `past ${SENDER_TIMEOUT_MS / 1000} s`,
          'delivered by webhook / poll',
        ],
        concurrentRows.map((r) => [
          concurrentName(r),
          r.chunkDelayMs.join('-'),
          String(r.sessions),
          String(r.instances),
          String(r.answers),
          String(r.mostInFlight),
          String(r.p50Ms),
          String(r.p99Ms),
          String(r.maxMs),
          String(r.pastSenderTimeout),
          `${r.delivered.webhook} / ${r.delivered.poll}`,
        ]),
      )}`,
    );
    const file = writeResults(BENCH_DIR, 'latency-concurrent', {
      benchmark: 'latency-concurrent',
      description: `answer time of webhooks sent concurrently by the emulator (built dist) when every session is completed at once, to ${settings.instances} receiver processes (Express, verificationWebhook, createReceiver with an API client and the defaults, sweeping) behind a round-robin balancer on loopback, on RedisStore and PostgresStore reached through a loopback TCP proxy holding every chunk sent to the store ${settings.chunkDelayMs.join('-')} ms (uniform, drawn for each chunk, never overtaking the chunk before); each answer timed at the balancer from the request's arrival to the end of the answer; the emulator gives up after ${SENDER_TIMEOUT_MS} ms as the service does, the answer is still timed, and those past it are counted.`,
      machine,
      versions: serverVersions,
      settings,
      senderTimeoutMs: SENDER_TIMEOUT_MS,
      loadAverage: loadavg().map((value) => Number(value.toFixed(2))),
      goals: concurrentGoals(concurrentRows),
      rows: concurrentRows,
    });
    console.log(`results: ${file.slice(ROOT.length)}`);
  }
}

await main();
