#!/usr/bin/env node
// Results per second through each sink of @faceverify/sinks, and the CPU each adds per result,
// beside a handler that does nothing, measured in the same run:
//   - Redis Streams, NATS JetStream, RabbitMQ and the HTTP forward, each on a Receiver with
//     MemoryStore, against a plain handler on MemoryStore;
//   - the PostgreSQL outbox, transactional on a PostgresStore, against a plain handler on a
//     PostgresStore of the same database (the outbox writes in the store's transaction, so the
//     store is part of it: its baseline is the store's own).
// Real servers, started here (the test-support helpers): redis-server, nats-server with
// JetStream, a RabbitMQ node, a PostgreSQL cluster, and the HTTP forward's endpoint in a child
// process (lib/forward-endpoint.mjs) that counts each POST and answers 204.
//
// In process, as accounts.bench.mjs: `receiver.receive()` of distinct, correctly signed 2 KiB
// webhooks (signed before the clock starts), `--concurrency` at a time, as a server takes
// concurrent requests; a receive answers 200 only once its handler (the sink) succeeded. For
// each sample, the wall time gives results per second and this process's CPU time (user +
// system) per result what receiving and publishing cost here; the servers' own CPU (redis-
// server, the broker, PostgreSQL, the endpoint) is not counted. Rounds rotate the order of the
// variants; figures are medians. At the end every sink is counted: each result sent is there,
// or the run fails. The built packages are measured: run `pnpm build` first.
//
// usage: node --import tsx bench/sinks.bench.mjs [--quick] [--rounds=N] [--sample-ms=N]
//          [--concurrency=N] [--only=redis,nats,rabbitmq,http,postgres]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startNatsServer } from '@faceverify/test-support/nats-server';
import { startRabbitMqServer } from '@faceverify/test-support/rabbitmq-server';
import { startPostgresServer, startRedisServer } from '@faceverify/test-support/servers';
import { machineInfo, median, packageVersions, table, writeResults } from './harness.mjs';
import { startChild } from './lib/child-process.mjs';
import { bodyFactory, SECRET, signHex } from './lib/webhook-bodies.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const entry = (name, file = 'index') =>
  pathToFileURL(fileURLToPath(new URL(`../packages/${name}/dist/${file}.js`, import.meta.url)))
    .href;
// The clients the sinks are written for, as the relay installs them (not the root's).
const relayRequire = createRequire(new URL('../packages/relay/package.json', import.meta.url));
const client = (name) => import(pathToFileURL(relayRequire.resolve(name)).href);

const { createReceiver, MemoryStore } = await import(entry('core'));
const { PostgresStore } = await import(entry('postgres'));
const { redisStreamSink } = await import(entry('sinks', 'redis'));
const { natsJetStreamSink } = await import(entry('sinks', 'nats'));
const { rabbitMqSink } = await import(entry('sinks', 'rabbitmq'));
const { outboxTableSql, postgresOutboxSink } = await import(entry('sinks', 'postgres'));
const { httpForwardSink } = await import(entry('sinks', 'http'));
const { Redis } = await client('ioredis');
const { connect: natsConnect } = await client('@nats-io/transport-node');
const { jetstream, jetstreamManager } = await client('@nats-io/jetstream');
const amqp = await client('amqplib');
const { default: pg } = await client('pg');

const SINKS = ['redis', 'nats', 'rabbitmq', 'http', 'postgres'];
const STREAM = 'bench:results';
const NATS_STREAM = 'BENCH';
const NATS_SUBJECT = 'bench.results';
const QUEUE = 'bench.results';
const OUTBOX = 'bench_outbox';
const FORWARD_SECRET = `whsec_${Buffer.from('bench-sinks-forward-secret-0123456789').toString('base64')}`;
const HOUR_NS = 3_600_000_000_000;
// Short windows, so the stores' memory stays level over the run, as in accounts.bench.mjs.
const COMMON = {
  secret: SECRET,
  client: false,
  untrackedWebhooks: 'deliver',
  replayWindowMs: 1000,
  sessionLifetimeMs: 1000,
  logger: false,
};
const OK_BODY = '{"received":true}';

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      'sample-ms': { type: 'string' },
      concurrency: { type: 'string' },
      only: { type: 'string' },
    },
    strict: false,
  });
  const number = (text, fallback) => (text === undefined ? fallback : Number(text));
  return {
    rounds: number(values.rounds, values.quick ? 2 : 7),
    sampleMs: number(values['sample-ms'], values.quick ? 500 : 3000),
    warmupResults: values.quick ? 200 : 500,
    concurrency: number(values.concurrency, 8),
    sinks: values.only ? String(values.only).split(',') : SINKS,
  };
}

/**
 * A Receiver whose only `verification.completed` handler is `handler`, and the requests it is
 * fed: `request()` is the next distinct body of this variant, signed.
 *
 * @param {string} name
 * @param {{ baseline: string | null, store: unknown, handler: Function,
 *   transactional?: boolean, count: () => Promise<number>, close?: () => Promise<unknown> }} parts
 */
function variant(name, { baseline, store, handler, transactional = false, count, close }) {
  const receiver = createReceiver({ ...COMMON, store });
  receiver.on('verification.completed', handler, transactional ? { transactional: true } : {});
  const body = bodyFactory({ tag: name.replace(/\W+/g, '') });
  let n = 0;
  return {
    name,
    baseline,
    receiver,
    sent: 0,
    /** Results per sample, sized from the warm-up's rate. */
    perSample: 0,
    /** Ends what the variant's Receiver shares with another (the PostgreSQL pool). */
    closePool: /** @type {(() => Promise<void>) | undefined} */ (undefined),
    request() {
      const bytes = body(n++);
      return {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-signature': signHex(bytes) },
        body: bytes,
      };
    },
    count,
    async close() {
      await receiver.stop();
      await close?.();
    },
  };
}

/** A handler that does nothing but count, and how many it saw. */
function plainHandler() {
  let seen = 0;
  return {
    handler: () => {
      seen += 1;
    },
    count: async () => seen,
  };
}

/**
 * `results` receives of fresh requests, `concurrency` at a time: results per second (wall
 * time) and CPU µs of this process per result. Every one must be answered 200, delivered.
 */
async function sample(v, results, concurrency) {
  const requests = Array.from({ length: results }, () => v.request());
  let next = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const worker = async () => {
    while (next < requests.length) {
      const answer = await v.receiver.receive(requests[next++]);
      if (answer.status !== 200 || answer.body !== OK_BODY) {
        throw new Error(`${v.name}: answered ${answer.status} ${answer.body}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  v.sent += results;
  return { perSec: (results / ms) * 1000, cpuMicros: (used.user + used.system) / results };
}

/** The servers the chosen sinks need, started side by side; `stop()` stops them all. */
async function startServers(sinks) {
  const wanted = (sink) => sinks.includes(sink);
  const [redis, nats, rabbitmq, postgres, endpoint] = await Promise.all([
    wanted('redis') ? startRedisServer() : undefined,
    wanted('nats') ? startNatsServer() : undefined,
    wanted('rabbitmq') ? startRabbitMqServer() : undefined,
    wanted('postgres') ? startPostgresServer() : undefined,
    wanted('http')
      ? startChild(fileURLToPath(new URL('./lib/forward-endpoint.mjs', import.meta.url)))
      : undefined,
  ]);
  return {
    redis,
    nats,
    rabbitmq,
    postgres,
    endpoint,
    async stop() {
      await Promise.allSettled(
        [redis, nats, rabbitmq, postgres, endpoint].filter(Boolean).map((server) => server.stop()),
      );
    },
  };
}

/**
 * Adds the variants of this run to `list` (each as soon as its client is open, so that a
 * failure later closes it), the baselines first; resolves with the servers' versions.
 */
async function addVariants(servers, list) {
  const versions = {};
  const memoryPlain = plainHandler();
  list.push(variant('plain handler', { baseline: null, store: new MemoryStore(), ...memoryPlain }));
  if (servers.redis) {
    const redis = new Redis(servers.redis.url);
    versions['redis-server'] = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
    list.push(
      variant('Redis Streams', {
        baseline: 'plain handler',
        store: new MemoryStore(),
        handler: redisStreamSink({ redis, stream: STREAM }),
        count: () => redis.xlen(STREAM),
        close: () => redis.quit(),
      }),
    );
  }
  if (servers.nats) {
    const connection = await natsConnect({ servers: servers.nats.url });
    versions['nats-server'] = connection.info?.version;
    const manager = await jetstreamManager(connection);
    await manager.streams.add({
      name: NATS_STREAM,
      subjects: [NATS_SUBJECT],
      duplicate_window: HOUR_NS,
    });
    list.push(
      variant('NATS JetStream', {
        baseline: 'plain handler',
        store: new MemoryStore(),
        handler: natsJetStreamSink({ jetstream: jetstream(connection), subject: NATS_SUBJECT }),
        count: async () => (await manager.streams.info(NATS_STREAM)).state.messages,
        close: () => connection.drain(),
      }),
    );
  }
  if (servers.rabbitmq) {
    const connection = await amqp.connect(servers.rabbitmq.url);
    versions.rabbitmq = String(connection.connection.serverProperties.version);
    const channel = await connection.createChannel();
    await channel.assertQueue(QUEUE, { durable: true });
    const sink = rabbitMqSink({ url: servers.rabbitmq.url, exchange: '', routingKey: QUEUE });
    list.push(
      variant('RabbitMQ', {
        baseline: 'plain handler',
        store: new MemoryStore(),
        handler: sink,
        count: async () => (await channel.checkQueue(QUEUE)).messageCount,
        close: async () => {
          await sink.close();
          await connection.close();
        },
      }),
    );
  }
  if (servers.endpoint) {
    const { endpoint } = servers;
    list.push(
      variant('HTTP forward', {
        baseline: 'plain handler',
        store: new MemoryStore(),
        handler: httpForwardSink({ url: endpoint.ready.url, secret: FORWARD_SECRET }),
        count: async () => (await endpoint.ask('count')).received,
      }),
    );
  }
  if (servers.postgres) {
    const pool = new pg.Pool({ connectionString: servers.postgres.url(), max: 10 });
    pool.on('error', () => {});
    versions.postgres = (await pool.query('SHOW server_version')).rows[0].server_version;
    await pool.query(outboxTableSql({ table: OUTBOX }));
    const store = async (prefix) => {
      const opened = new PostgresStore({ pool, prefix });
      await opened.migrate();
      return opened;
    };
    const postgresPlain = plainHandler();
    list.push(
      variant('plain handler, PostgresStore', {
        baseline: null,
        store: await store('bench_plain_'),
        ...postgresPlain,
      }),
      variant('PostgreSQL outbox', {
        baseline: 'plain handler, PostgresStore',
        store: await store('bench_outbox_'),
        handler: postgresOutboxSink({ table: OUTBOX }),
        transactional: true,
        count: async () =>
          Number((await pool.query(`SELECT count(*) FROM ${OUTBOX}`)).rows[0].count),
      }),
    );
    // The pool outlives both Receivers: closed once the last one stopped.
    list.at(-1).closePool = () => pool.end();
  }
  return versions;
}

/** The smallest and largest per-round ratio of `field`, variant / baseline. */
function roundRange(own, base, field) {
  const ratios = own.map((s, i) => s[field] / base[i][field]);
  return [Math.min(...ratios), Math.max(...ratios)].map((r) => Number(r.toFixed(3)));
}

const settings = options();
const machine = machineInfo(ROOT);
const servers = await startServers(settings.sinks);
let rows;
let versions;
const list = [];
try {
  versions = await addVariants(servers, list);
  // The warm-up's rate sizes each variant's samples to about `sampleMs`: a fast variant's
  // would otherwise last a fraction of a second, and a busy machine's hiccup be all of it.
  for (const v of list) {
    const warm = await sample(v, settings.warmupResults, settings.concurrency);
    v.perSample = Math.max(100, Math.round((warm.perSec * settings.sampleMs) / 1000));
  }
  const samples = Object.fromEntries(list.map((v) => [v.name, []]));
  for (let round = 0; round < settings.rounds; round++) {
    const shift = round % list.length;
    for (const v of [...list.slice(shift), ...list.slice(0, shift)]) {
      samples[v.name].push(await sample(v, v.perSample, settings.concurrency));
    }
  }
  // Nothing lost, nothing extra: each sink holds every result sent to it.
  for (const v of list) {
    const counted = await v.count();
    if (counted !== v.sent) throw new Error(`${v.name}: ${v.sent} results sent, ${counted} there`);
  }
  const medians = Object.fromEntries(
    list.map((v) => [
      v.name,
      {
        perSec: median(samples[v.name].map((s) => s.perSec)),
        cpuMicros: median(samples[v.name].map((s) => s.cpuMicros)),
      },
    ]),
  );
  rows = list.map((v) => {
    const own = medians[v.name];
    const base = v.baseline ? medians[v.baseline] : own;
    return {
      variant: v.name,
      baseline: v.baseline,
      resultsPerSec: Math.round(own.perSec),
      cpuMicrosPerResult: Number(own.cpuMicros.toFixed(1)),
      throughputRatio: Number((own.perSec / base.perSec).toFixed(3)),
      cpuRatio: Number((own.cpuMicros / base.cpuMicros).toFixed(3)),
      cpuAddedMicros: Number((own.cpuMicros - base.cpuMicros).toFixed(1)),
      // The spread of the ratio over rounds: wide when the machine was busy.
      throughputRatioRange: roundRange(samples[v.name], samples[v.baseline ?? v.name], 'perSec'),
      cpuRatioRange: roundRange(samples[v.name], samples[v.baseline ?? v.name], 'cpuMicros'),
      results: v.sent,
      resultsPerSample: v.perSample,
      samples: samples[v.name].map((s) => ({
        perSec: Math.round(s.perSec),
        cpuMicros: Number(s.cpuMicros.toFixed(1)),
      })),
    };
  });
} finally {
  for (const v of list) await v.close();
  await list.find((v) => v.closePool)?.closePool();
  await servers.stop();
}

console.log(
  `sinks: receiver.receive() of signed 2 KiB webhooks, ${settings.concurrency} at a time, ${settings.rounds} rounds of about ${settings.sampleMs} ms per variant`,
);
console.log(
  `\n${table(
    ['variant', 'results/s', 'ratio', 'CPU µs/result', 'CPU ratio', 'CPU added µs'],
    rows.map((r) => [
      r.variant,
      String(r.resultsPerSec),
      r.throughputRatio.toFixed(2),
      r.cpuMicrosPerResult.toFixed(1),
      r.cpuRatio.toFixed(2),
      r.baseline ? r.cpuAddedMicros.toFixed(1) : '-',
    ]),
  )}`,
);
const file = writeResults(BENCH_DIR, 'sinks', {
  benchmark: 'sinks',
  description:
    'Results per second and CPU time of this process per result through each sink of @faceverify/sinks (built dist), in process: receiver.receive() of distinct signed 2 KiB webhooks, N at a time, answered once the sink succeeded; Redis Streams, NATS JetStream, RabbitMQ and the HTTP forward on MemoryStore beside a plain handler on MemoryStore, the PostgreSQL outbox (transactional) on a PostgresStore beside a plain handler on a PostgresStore; real servers started by the run, their own CPU not counted; medians of rotated rounds; ratio = variant / its baseline.',
  machine,
  settings,
  versions: {
    ...packageVersions(ROOT, [
      '@faceverify/core',
      '@faceverify/sinks',
      '@faceverify/postgres',
      'ioredis',
      'pg',
    ]),
    // Read from the relay's node_modules: not every one exports its package.json.
    ...Object.fromEntries(
      ['@nats-io/transport-node', '@nats-io/jetstream', 'amqplib'].map((name) => [
        name,
        JSON.parse(
          readFileSync(
            new URL(`../packages/relay/node_modules/${name}/package.json`, import.meta.url),
            'utf8',
          ),
        ).version,
      ]),
    ),
    ...versions,
  },
  results: { rows },
});
console.log(`\nwrote ${file}`);
