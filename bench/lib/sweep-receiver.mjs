#!/usr/bin/env node
// One Receiver instance of bench/sweeps.bench.mjs, in a process of its own as a deployment
// runs it (the reliability tests spawn theirs alike): the built packages, a RedisStore or a
// PostgresStore, the emulator as its service, and `receiver.start()`'s sweep timer once the
// parent says `go`. Every `GET /v1/sessions/:token` it sends is counted, through node:http's
// diagnostics channels: the client sends as deployed (node:http on Node, no `fetch` of ours in
// the way). Answers `stats`, `health` and `stop` over IPC.
//
// usage (by sweeps.bench.mjs): node sweep-receiver.mjs '<JSON settings>'
import { subscribe } from 'node:diagnostics_channel';
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
const isPoll = (request) => request.method === 'GET' && request.path.startsWith('/v1/sessions/');
// Every session poll counted as it is sent, and every one not answered 200.
subscribe('http.client.request.start', ({ request }) => {
  if (isPoll(request)) polls++;
});
subscribe('http.client.response.finish', ({ request, response }) => {
  if (isPoll(request) && response.statusCode !== 200) failedPolls++;
});

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
  client: { apiKey: settings.apiKey, baseUrl: settings.baseUrl },
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
