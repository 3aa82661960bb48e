#!/usr/bin/env node
// One receiver instance of bench/latency.bench.mjs's concurrent case, in a process of its own
// as a deployment runs it: Express with the webhook middleware, a Receiver with an API client
// (the emulator) and the defaults otherwise, sweeping (`start()`), on RedisStore or
// PostgresStore reached at `url` (the bench's delay proxy). The store's connections are opened
// before it says `ready` and kept: a running service has them open. With `transactional`
// (PostgreSQL), its handler writes a row in the transaction that settles the record. It
// answers `reset` (counts from now on), `stats` (results delivered by source, warnings and
// errors logged, the PostgreSQL pool's most callers waiting for a connection, the statements
// sent by their start) and `stop`.
//
// usage (by latency.bench.mjs): node latency-instance.mjs '{ "store": "postgres" | "redis",
//   "url": "...", "prefix": "...", "poolMax": 10, "pipelinedConnections": null | N,
//   "secret": "...", "apiKey": "...",
//   "baseUrl": "...", "transactional": false }'
import { once } from 'node:events';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express from 'express';
import { Redis } from 'ioredis';
import pg from 'pg';

const config = JSON.parse(process.argv[2] ?? '{}');
const dist = (name) =>
  pathToFileURL(fileURLToPath(new URL(`../../packages/${name}/dist/index.js`, import.meta.url)))
    .href;
const { createReceiver } = await import(dist('core'));
const { verificationWebhook } = await import(dist('express'));

/** How often the pool's queue of callers waiting for a connection is looked at. */
const POOL_SAMPLE_MS = 10;

/** Statements sent to PostgreSQL, by their first words, since the last `reset`. */
let statements = new Map();
/** The start of a statement, enough to tell which of the store's it is. */
const statementName = (text) => String(text).trim().replace(/\s+/g, ' ').slice(0, 48);

let store;
let pool;
let redis;
if (config.store === 'postgres') {
  const { PostgresStore } = await import(dist('postgres'));
  pool = new pg.Pool({ connectionString: config.url, max: config.poolMax, idleTimeoutMillis: 0 });
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    const query = client.query.bind(client);
    client.query = (...args) => {
      const name = statementName(typeof args[0] === 'string' ? args[0] : args[0]?.text);
      statements.set(name, (statements.get(name) ?? 0) + 1);
      return query(...args);
    };
  });
  await Promise.all(Array.from({ length: config.poolMax }, () => pool.query('SELECT 1')));
  store = new PostgresStore({
    pool,
    prefix: config.prefix,
    ...(config.pipelinedConnections === null
      ? {}
      : { pipelinedConnections: config.pipelinedConnections }),
  });
} else {
  const { RedisStore } = await import(dist('redis'));
  redis = new Redis(config.url, { maxRetriesPerRequest: 2 });
  redis.on('error', () => {});
  await redis.ping();
  store = new RedisStore({ redis, prefix: config.prefix });
}

/** Each store method's calls since the last `reset`: how many, and their total and longest ms. */
let storeCalls = new Map();
/**
 * `store` with each method timed from call to answer, waiting for a pooled connection
 * included: the store as the Receiver sees it.
 */
function timed(store) {
  const timedStore = Object.create(store);
  for (let proto = Object.getPrototypeOf(store); proto !== Object.prototype; ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const method = Object.getOwnPropertyDescriptor(proto, name)?.value;
      // A subclass's method was wrapped first; the one it overrides is never called.
      if (
        name === 'constructor' ||
        typeof method !== 'function' ||
        Object.hasOwn(timedStore, name)
      ) {
        continue;
      }
      timedStore[name] = (...args) => {
        const started = performance.now();
        const answer = method.apply(store, args);
        if (!(answer instanceof Promise)) return answer;
        const noted = () => {
          const ms = performance.now() - started;
          const row = storeCalls.get(name) ?? { calls: 0, totalMs: 0, maxMs: 0 };
          row.calls += 1;
          row.totalMs += ms;
          row.maxMs = Math.max(row.maxMs, ms);
          storeCalls.set(name, row);
        };
        answer.then(noted, noted);
        return answer;
      };
    }
    proto = Object.getPrototypeOf(proto);
  }
  return timedStore;
}

let delivered = { webhook: 0, poll: 0 };
let logged = { warn: 0, error: 0, lines: new Map() };
/** Counts each warning and error by its message, so the bench prints what the receiver said. */
const note = (level) => (message) => {
  logged[level] += 1;
  logged.lines.set(message, (logged.lines.get(message) ?? 0) + 1);
};
const receiver = createReceiver({
  secret: config.secret,
  client: { apiKey: config.apiKey, baseUrl: config.baseUrl },
  store: timed(store),
  logger: { warn: note('warn'), error: note('error') },
});
if (config.transactional && pool) {
  // As an application keeping its users' state beside the store: a row written in the
  // transaction that settles the record.
  await pool.query(
    `CREATE TABLE IF NOT EXISTS ${config.prefix}results (session_token text, status text, source text)`,
  );
  receiver.on(
    'verification.completed',
    async (event, { transaction }) => {
      await transaction.query(
        `INSERT INTO ${config.prefix}results (session_token, status, source) VALUES ($1, $2, $3)`,
        [event.sessionToken, event.data.status, event.source],
      );
      delivered[event.source] += 1;
    },
    { transactional: true },
  );
} else {
  receiver.on('verification.completed', (event) => {
    delivered[event.source] += 1;
  });
}

let poolWaiting = 0;
const sampler = setInterval(() => {
  if (pool) poolWaiting = Math.max(poolWaiting, pool.waitingCount);
}, POOL_SAMPLE_MS);

const app = express();
app.use(verificationWebhook(receiver));
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
receiver.start();

process.on('message', async (/** @type {{ type: string }} */ message) => {
  if (message.type === 'reset') {
    delivered = { webhook: 0, poll: 0 };
    logged = { warn: 0, error: 0, lines: new Map() };
    poolWaiting = 0;
    statements = new Map();
    storeCalls = new Map();
    process.send({ type: 'reset' });
  } else if (message.type === 'stats') {
    process.send({
      type: 'stats',
      delivered,
      warnings: logged.warn,
      errors: logged.error,
      lines: Object.fromEntries(logged.lines),
      poolWaitingMax: pool ? poolWaiting : null,
      statements: Object.fromEntries(statements),
      storeCalls: Object.fromEntries(storeCalls),
    });
  } else if (message.type === 'stop') {
    clearInterval(sampler);
    await receiver.stop();
    server.closeAllConnections();
    server.close();
    await (pool ? pool.end() : redis.quit());
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready', url: `http://127.0.0.1:${server.address().port}` });
