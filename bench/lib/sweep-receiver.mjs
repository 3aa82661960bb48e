#!/usr/bin/env node
// One Receiver instance of bench/sweeps.bench.mjs, in a process of its own as a deployment
// runs it (the reliability tests spawn theirs alike): the built packages, a RedisStore or a
// PostgresStore, the emulator as its service, and `receiver.start()`'s sweep timer once the
// parent says `go`. Every `GET /v1/sessions/:token` it sends is counted (a `fetch` of its
// own, passed as the client's). Answers `stats`, `health` and `stop` over IPC.
//
// usage (by sweeps.bench.mjs): node sweep-receiver.mjs '<JSON settings>'
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = (name) =>
  pathToFileURL(fileURLToPath(new URL(`../../packages/${name}/dist/index.js`, import.meta.url)))
    .href;
/**
 * @type {{ store: 'redis' | 'postgres', url: string, prefix: string, baseUrl: string,
 *   apiKey: string, secret: string, receiver: Record<string, unknown> }}
 */
const settings = JSON.parse(process.argv[2]);

let polls = 0;
let failedPolls = 0;
let errors = 0;
let handlerCalls = 0;
/** The client's fetch: every session poll counted, and every one not answered 200. */
const countingFetch = async (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const poll = (init?.method ?? 'GET') === 'GET' && url.includes('/v1/sessions/');
  if (poll) polls++;
  const response = await fetch(input, init);
  if (poll && response.status !== 200) failedPolls++;
  return response;
};

async function openStore() {
  if (settings.store === 'redis') {
    const { Redis } = await import('ioredis');
    const { RedisStore } = await import(entry('redis'));
    const redis = new Redis(settings.url, { maxRetriesPerRequest: 2 });
    return { store: new RedisStore({ redis, prefix: settings.prefix }), close: () => redis.quit() };
  }
  const { default: pg } = await import('pg');
  const { PostgresStore } = await import(entry('postgres'));
  const pool = new pg.Pool({ connectionString: settings.url, max: 10 });
  return { store: new PostgresStore({ pool, prefix: settings.prefix }), close: () => pool.end() };
}

const { createReceiver } = await import(entry('core'));
const { store, close } = await openStore();
await store.check?.();
const receiver = createReceiver({
  ...settings.receiver,
  secret: settings.secret,
  client: { apiKey: settings.apiKey, baseUrl: settings.baseUrl, fetch: countingFetch },
  store,
  logger: false,
});
receiver.on('verification.completed', () => {
  handlerCalls++;
});
receiver.on('error', () => {
  errors++;
});

process.on('message', async (/** @type {{ type: string }} */ message) => {
  if (message.type === 'go') {
    receiver.start();
  } else if (message.type === 'stats') {
    const cpu = process.cpuUsage();
    process.send({
      type: 'stats',
      polls,
      failedPolls,
      errors,
      handlerCalls,
      cpuMicros: cpu.user + cpu.system,
    });
  } else if (message.type === 'health') {
    process.send({ type: 'health', health: await receiver.health() });
  } else if (message.type === 'stop') {
    await receiver.stop();
    await close();
    process.send({ type: 'stopped' });
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready' });
