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
import { createCipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
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

/** The hand-written check every baseline uses: HMAC of the raw bytes, constant-time compare. */
function signatureMatches(body, header) {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(header, 'hex');
  const actual = createHmac('sha256', SECRET).update(body).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Baseline logic shared by every framework: verify, parse, count; returns [status, body].
 * @param {Buffer} body
 * @param {string | string[] | undefined} header
 * @returns {[200 | 400 | 401, Record<string, unknown>]}
 */
function handWritten(body, header) {
  if (!signatureMatches(body, header)) return [401, { error: 'signature_invalid' }];
  try {
    JSON.parse(body.toString('utf8'));
  } catch {
    return [400, { error: 'payload_invalid' }];
  }
  handled++;
  return [200, { received: true }];
}

// ---- the hand-written receiver that keeps the same promises, written plainly ----------------
//
// What the Receiver keeps in process on its accept path, each done the obvious way:
// - the replay window: a Map of body digest -> expiry, pruned from its oldest entry (every
//   digest lives as long, so insertion order is expiry order);
// - a record that survives a throwing handler: the result waits in a Map until its handler
//   returned, and one that threw is retried later by a timer;
// - the body deadline: a timer per request that aborts a body still arriving after 10 s
//   (set by each framework's server below);
// - the rate-limited rejection log: at most one line a minute per kind of rejection.
const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
const BODY_TIMEOUT_MS = 10_000;
const RETRY_AFTER_MS = 30_000;
const REJECTION_LOG_INTERVAL_MS = 60_000;

/** Body digest (SHA-256, hex) -> when it may be accepted again. */
const seenDigests = new Map();
/** Body digest -> a result whose handler has not returned yet, or threw. */
const pendingResults = new Map();
/** Kind of rejection -> when it was last logged. */
const rejectionLoggedAt = new Map();

function logRejection(kind) {
  const now = Date.now();
  const last = rejectionLoggedAt.get(kind);
  if (last !== undefined && now - last < REJECTION_LOG_INTERVAL_MS) return;
  rejectionLoggedAt.set(kind, now);
  console.warn(`webhook rejected: ${kind} (logged at most once a minute)`);
}

/** The application's handler, as in every other server here. */
async function handleResult(_payload) {
  handled++;
}

/** Runs the handler of one pending result; it stays pending, due again later, if it throws. */
async function deliverPending(digest, pending) {
  try {
    await handleResult(pending.payload);
    pendingResults.delete(digest);
    return true;
  } catch {
    pending.attempts++;
    pending.dueAt = Date.now() + RETRY_AFTER_MS;
    return false;
  }
}

// Results whose handler threw are retried by a timer; it never keeps the process alive.
if (keepsPromises) {
  setInterval(() => {
    const now = Date.now();
    for (const [digest, pending] of pendingResults) {
      if (pending.dueAt <= now) deliverPending(digest, pending);
    }
  }, 5_000).unref();
}

// ---- what the Receiver keeps at rest, written plainly (the `at-rest` variant) --------------
//
// A store never holds a user's id or a session's token in clear, nor a result: the Receiver
// keeps the user id and the record key as HMAC-SHA256 under a key the store never sees, and
// the whole result sealed with AES-256-GCM (the record key as associated data), base64url
// (docs/guarantees.md, 19 and 27). Here each is done with node:crypto, the obvious way, and
// the record kept in a Map of the same bound as the Receiver's caches.
const AT_REST_KEY = randomBytes(32);
const AT_REST_LIMIT = 4096;
/** Record key -> the user's keyed hash and the sealed result. */
const atRest = new Map();

function keepAtRest(payload, digest, now) {
  const keyed = (text) => createHmac('sha256', AT_REST_KEY).update(text).digest('base64url');
  const user = keyed(String(payload.external_user_id));
  const recordKey = keyed(digest);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', AT_REST_KEY, iv).setAAD(Buffer.from(recordKey));
  const plain = Buffer.from(JSON.stringify({ payload, source: 'webhook', receivedAt: now }));
  const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  atRest.set(recordKey, { user, result: sealed.toString('base64url') });
  if (atRest.size > AT_REST_LIMIT) atRest.delete(atRest.keys().next().value);
}

/**
 * The hand-written receiver with the promises kept: verify, parse, the replay window, the
 * pending record, the handler; returns [status, body].
 * @param {Buffer} body
 * @param {string | string[] | undefined} header
 * @returns {Promise<[number, Record<string, unknown>]>}
 */
async function keptPromises(body, header) {
  if (typeof header !== 'string') {
    logRejection('signature_missing');
    return [401, { error: 'signature_missing' }];
  }
  if (!signatureMatches(body, header)) {
    logRejection('signature_invalid');
    return [401, { error: 'signature_invalid' }];
  }
  let payload;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    logRejection('payload_invalid');
    return [400, { error: 'payload_invalid' }];
  }
  const now = Date.now();
  for (const [digest, expiresAt] of seenDigests) {
    if (expiresAt > now) break;
    seenDigests.delete(digest);
  }
  const digest = createHash('sha256').update(body).digest('hex');
  if (seenDigests.has(digest)) return [200, { received: true, duplicate: true }];
  seenDigests.set(digest, now + REPLAY_WINDOW_MS);
  if (variant === 'at-rest') keepAtRest(payload, digest, now);
  const pending = { payload, attempts: 1, dueAt: now + RETRY_AFTER_MS };
  pendingResults.set(digest, pending);
  if (await deliverPending(digest, pending)) return [200, { received: true }];
  return [500, { error: 'handler_failed' }];
}

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
