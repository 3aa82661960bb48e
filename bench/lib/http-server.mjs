#!/usr/bin/env node
// One webhook server for the HTTP benchmark, run as a child process so that its CPU time and
// RSS are its own. It listens on 127.0.0.1 (a free port), tells the parent the port over IPC,
// and answers `stats`, `gc` and `stop` messages.
//
// usage (by http.bench.mjs): node http-server.mjs <express|koa|hono|fastify|fetch|node>
//                                                  <baseline|promises|at-rest|library|octokit>
//                            node http-server.mjs koa <verify-parse|replay|record|receive>
//                                                  [--replay-window-ms=N]
//                            bun http-server.mjs bun <baseline|promises|library> (Bun.serve)
//
// `baseline` is the plain hand-written receiver; `promises` is the same receiver keeping,
// written plainly, what the Receiver keeps in process (see `keptPromises`); `at-rest` keeps
// besides what the Receiver keeps at rest: the user id and record key as keyed hashes, the
// result sealed (see `keepAtRest`).
import { createServer } from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BODY_TIMEOUT_MS, handWrittenReceivers } from './hand-written.mjs';
import { SECRET, WEBHOOK_PATH } from './webhook-bodies.mjs';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { 'replay-window-ms': { type: 'string' } },
});
const [framework, variant] = positionals;
// `at-rest` is the `promises` receiver with the at-rest work added.
const keepsPromises = variant === 'promises' || variant === 'at-rest';
const packageEntry = (name) =>
  pathToFileURL(fileURLToPath(new URL(`../../packages/${name}/dist/index.js`, import.meta.url)))
    .href;

let handled = 0;
const LIMIT = 256 * 1024;
const { handWritten, keptPromises } = handWrittenReceivers({
  atRest: variant === 'at-rest',
  retries: keepsPromises,
  onHandled: () => {
    handled++;
  },
});

/**
 * A Fetch body read within the deadline, as portable hand-written code races it: `null`
 * when the body did not arrive in time.
 * @param {() => Promise<ArrayBuffer>} read
 */
async function readWithinDeadline(read) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), BODY_TIMEOUT_MS);
  });
  try {
    return await Promise.race([read(), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function libraryReceiver() {
  const { createReceiver, MemoryStore } = await import(packageEntry('core'));
  const replayWindowMs = values['replay-window-ms'];
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    ...(replayWindowMs ? { replayWindowMs: Number(replayWindowMs) } : {}),
  });
  receiver.on('verification.completed', () => {
    handled++;
  });
  return receiver;
}

async function expressServer() {
  const { default: express } = await import('express');
  const app = express();
  if (variant === 'baseline') {
    app.post(WEBHOOK_PATH, express.raw({ type: () => true, limit: LIMIT }), (req, res) => {
      const [status, body] = handWritten(req.body, req.get('x-webhook-signature'));
      res.status(status).json(body);
    });
  } else if (keepsPromises) {
    const bodyTimers = new WeakMap();
    app.post(
      WEBHOOK_PATH,
      (req, _res, next) => {
        bodyTimers.set(
          req,
          setTimeout(() => req.destroy(), BODY_TIMEOUT_MS),
        );
        next();
      },
      express.raw({ type: () => true, limit: LIMIT }),
      async (req, res) => {
        clearTimeout(bodyTimers.get(req));
        const [status, body] = await keptPromises(req.body, req.get('x-webhook-signature'));
        res.status(status).json(body);
      },
    );
  } else {
    const { verificationWebhook } = await import(packageEntry('express'));
    app.post(WEBHOOK_PATH, verificationWebhook(await libraryReceiver()));
  }
  return createServer(app);
}

async function koaServer() {
  const { default: Koa } = await import('koa');
  const app = new Koa();
  if (variant === 'baseline') {
    const { default: getRawBody } = await import('raw-body');
    app.use(async (ctx, next) => {
      if (ctx.path !== WEBHOOK_PATH || ctx.method !== 'POST') return next();
      const raw = await getRawBody(ctx.req, {
        limit: LIMIT,
        length: ctx.get('content-length') || undefined,
      });
      const [status, body] = handWritten(raw, ctx.get('x-webhook-signature') || undefined);
      ctx.status = status;
      ctx.body = body;
    });
  } else if (keepsPromises) {
    const { default: getRawBody } = await import('raw-body');
    app.use(async (ctx, next) => {
      if (ctx.path !== WEBHOOK_PATH || ctx.method !== 'POST') return next();
      const timer = setTimeout(() => ctx.req.destroy(), BODY_TIMEOUT_MS);
      let raw;
      try {
        raw = await getRawBody(ctx.req, {
          limit: LIMIT,
          length: ctx.get('content-length') || undefined,
        });
      } finally {
        clearTimeout(timer);
      }
      const [status, body] = await keptPromises(raw, ctx.get('x-webhook-signature') || undefined);
      ctx.status = status;
      ctx.body = body;
    });
  } else if (LAYERS.includes(variant)) {
    const { default: getRawBody } = await import('raw-body');
    const layer = await layerOf(variant);
    app.use(async (ctx, next) => {
      if (ctx.path !== WEBHOOK_PATH || ctx.method !== 'POST') return next();
      const raw = await getRawBody(ctx.req, {
        limit: LIMIT,
        length: ctx.get('content-length') || undefined,
      });
      const answer = await layer(raw, ctx.req.headers);
      ctx.status = answer.status;
      ctx.set(answer.headers);
      ctx.body = answer.body;
    });
  } else {
    const { verificationWebhook } = await import(packageEntry('koa'));
    app.use(verificationWebhook(await libraryReceiver(), { path: WEBHOOK_PATH }));
  }
  return createServer(app.callback());
}

/**
 * The Receiver's accept path rebuilt layer by layer from core's public parts, for Koa's
 * "where the microseconds go" rows: each layer does what the one before does, and more.
 * - `verify-parse`: `verify()` and `parseVerificationPayload()`;
 * - `replay`: and the replay key (SHA-256 of the body) remembered in `MemoryStore`;
 * - `record`: and the delivery's record: `findByUser`, `insert` leased, `settle` completed;
 * - `receive`: `receiver.receive()` itself (events, leases, timers, answers), no adapter.
 */
const LAYERS = ['verify-parse', 'replay', 'record', 'receive'];

async function layerOf(variant) {
  const core = await import(packageEntry('core'));
  const json = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  const answer = (status, body) => ({ status, headers: { ...json }, body: JSON.stringify(body) });
  if (variant === 'receive') {
    const receiver = await libraryReceiver();
    return (body, headers) => receiver.receive({ method: 'POST', headers, body });
  }
  const store = new core.MemoryStore();
  const { hash } = await import('node:crypto');
  let owners = 0;
  return async (body, headers) => {
    if (!(await core.verify(body, headers['x-webhook-signature'], SECRET))) {
      return answer(401, { error: 'signature_invalid' });
    }
    const payload = core.parseVerificationPayload(body);
    if (variant !== 'verify-parse') {
      const now = Date.now();
      const digest = hash('sha256', body, 'hex').slice(0, 32);
      if (!(await store.remember({ digest, ttlMs: 86_400_000, now }))) {
        return answer(200, { received: true, duplicate: true });
      }
      if (variant === 'record') {
        const key = `webhook:${digest}`;
        const owner = `o:${++owners}`;
        const user = payload.external_user_id;
        await store.findByUser({ externalUserId: user, now, limit: 25 });
        await store.insert({
          record: {
            key,
            externalUserId: user,
            createdAt: now,
            expiresAt: now + 86_400_000,
            state: 'delivering',
            dueAt: now,
            attempts: 0,
            result: { payload, source: 'webhook', receivedAt: now },
            lease: { owner, until: now + 30_000 },
          },
          now,
          maxOpenPerUser: 5,
          displacedRetainMs: 86_400_000,
        });
        handled++;
        await store.settle({ key, owner, update: { state: 'completed', retainMs: 0 }, now });
        return answer(200, { received: true });
      }
    }
    handled++;
    return answer(200, { received: true });
  };
}

async function honoServer() {
  const { Hono } = await import('hono');
  const { createAdaptorServer } = await import('@hono/node-server');
  const app = new Hono();
  if (variant === 'baseline') {
    app.post(WEBHOOK_PATH, async (c) => {
      const raw = Buffer.from(await c.req.arrayBuffer());
      const [status, body] = handWritten(raw, c.req.header('x-webhook-signature'));
      return c.json(body, status);
    });
  } else if (keepsPromises) {
    app.post(WEBHOOK_PATH, async (c) => {
      const bytes = await readWithinDeadline(() => c.req.arrayBuffer());
      if (bytes === null) return c.json({ error: 'body_timeout' }, 408);
      const [status, body] = await keptPromises(
        Buffer.from(bytes),
        c.req.header('x-webhook-signature'),
      );
      return c.json(body, /** @type {200} */ (status));
    });
  } else {
    const { verificationWebhook } = await import(packageEntry('hono'));
    app.post(WEBHOOK_PATH, verificationWebhook(await libraryReceiver()));
  }
  return createAdaptorServer({ fetch: app.fetch });
}

async function fastifyServer() {
  const { default: Fastify } = await import('fastify');
  let server;
  const app = Fastify({
    serverFactory: (handler) => {
      server = createServer(handler);
      return server;
    },
  });
  if (variant === 'baseline') {
    // Raw bytes on this route only, as a hand-written Fastify receiver would take them.
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LIMIT }, (_r, body, done) =>
        done(null, body),
      );
      scope.post(WEBHOOK_PATH, async (request, reply) => {
        const raw = /** @type {Buffer} */ (request.body);
        const [status, body] = handWritten(raw, request.headers['x-webhook-signature']);
        reply.code(status);
        return body;
      });
    });
  } else if (keepsPromises) {
    await app.register(async (scope) => {
      const bodyTimers = new WeakMap();
      scope.addHook('onRequest', (request, _reply, done) => {
        bodyTimers.set(
          request,
          setTimeout(() => request.raw.destroy(), BODY_TIMEOUT_MS),
        );
        done();
      });
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LIMIT }, (_r, body, done) =>
        done(null, body),
      );
      scope.post(WEBHOOK_PATH, async (request, reply) => {
        clearTimeout(bodyTimers.get(request));
        const raw = /** @type {Buffer} */ (request.body);
        const [status, body] = await keptPromises(raw, request.headers['x-webhook-signature']);
        reply.code(status);
        return body;
      });
    });
  } else {
    const { verificationWebhook } = await import(packageEntry('fastify'));
    await app.register(verificationWebhook, {
      receiver: await libraryReceiver(),
      path: WEBHOOK_PATH,
    });
  }
  await app.ready();
  return server;
}

/** A Fetch handler: the hand-written one reads `request.arrayBuffer()`, as most examples do. */
async function fetchHandler() {
  if (variant === 'baseline') {
    return async (request) => {
      const raw = Buffer.from(await request.arrayBuffer());
      const signature = request.headers.get('x-webhook-signature') ?? undefined;
      const [status, body] = handWritten(raw, signature);
      return Response.json(body, { status });
    };
  }
  if (keepsPromises) {
    return async (request) => {
      const bytes = await readWithinDeadline(() => request.arrayBuffer());
      if (bytes === null) return Response.json({ error: 'body_timeout' }, { status: 408 });
      const signature = request.headers.get('x-webhook-signature') ?? undefined;
      const [status, body] = await keptPromises(Buffer.from(bytes), signature);
      return Response.json(body, { status });
    };
  }
  const { verificationWebhook } = await import(packageEntry('fetch'));
  return verificationWebhook(await libraryReceiver());
}

/** The Fetch handler on Node's HTTP server through @hono/node-server, as Node users serve one. */
async function fetchServer() {
  const { createAdaptorServer } = await import('@hono/node-server');
  return createAdaptorServer({ fetch: await fetchHandler() });
}

async function nodeServer() {
  if (variant === 'octokit') {
    const { Webhooks, createNodeMiddleware } = await import('@octokit/webhooks');
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const webhooks = new Webhooks({ secret: SECRET, log: quiet });
    webhooks.on('ping', () => {
      handled++;
    });
    return createServer(createNodeMiddleware(webhooks, { path: WEBHOOK_PATH, log: quiet }));
  }
  return createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > LIMIT) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      const [status, body] = handWritten(Buffer.concat(chunks), req.headers['x-webhook-signature']);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
}

const builders = {
  express: expressServer,
  koa: koaServer,
  hono: honoServer,
  fastify: fastifyServer,
  fetch: fetchServer,
  node: nodeServer,
};
if (
  !(builders[framework] || framework === 'bun') ||
  !['baseline', 'promises', 'at-rest', 'library', 'octokit', ...LAYERS].includes(variant) ||
  (keepsPromises && framework === 'node')
) {
  console.error(`unknown server ${framework} ${variant}`);
  process.exit(2);
}

/** Starts the server; resolves a function that closes it. */
async function listen() {
  if (framework === 'bun') {
    const server = globalThis.Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: await fetchHandler(),
    });
    process.send?.({ type: 'ready', port: server.port });
    return (done) => {
      server.stop(true);
      done();
    };
  }
  const server = await builders[framework]();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  process.send?.({ type: 'ready', port });
  return (done) => {
    server.closeAllConnections?.();
    server.close(done);
  };
}
const close = await listen();
// Bun has no --expose-gc; Bun.gc(true) is its synchronous full collection.
const collect = globalThis.gc ?? (globalThis.Bun ? () => globalThis.Bun.gc(true) : undefined);

process.on('message', (/** @type {{ type: string }} */ message) => {
  if (message.type === 'gc') collect?.();
  if (message.type === 'stats' || message.type === 'gc') {
    const memory = process.memoryUsage();
    process.send({
      type: 'stats',
      handled,
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      // What V8 holds from the system for its heap, used or not: part of the RSS.
      heapTotal: memory.heapTotal,
      // Outside V8's heap: Buffers' and ArrayBuffers' bytes, and what native code reported.
      external: memory.external,
      arrayBuffers: memory.arrayBuffers,
      cpuMicros: process.cpuUsage().user + process.cpuUsage().system,
      gcExposed: typeof collect === 'function',
    });
  }
  if (message.type === 'stop') {
    close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  }
});
process.on('disconnect', () => process.exit(0));
