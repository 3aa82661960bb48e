import {
  createReceiver,
  MemoryStore,
  type ReceiverOptions,
  type VerificationCompletedEvent,
} from '@faceverify/core';
import {
  createTestClock,
  fixturePayload,
  signedDelivery,
  tamperedDelivery,
} from '@faceverify/core/testing';
import type { ExecutionContext } from 'hono';
import { Hono, type MiddlewareHandler } from 'hono';
import { bunRuntime } from '../../../core/test/portable/bun-runtime.js';
// One portable-case format for the whole repository: the runtimes runner reads it.
import { check, checkEqual, type PortableCase } from '../../../core/test/portable/case.js';
import { type VerificationEnv, verificationWebhook } from '../../src/index.js';

const SECRET = 'whsec_hono_portable_3e8a1d';
const LIMIT = 32 * 1024;
const URL_BASE = 'http://hono.test';
const WEBHOOK = '/webhooks/verification';

function setup(options: Partial<ReceiverOptions> = {}) {
  const events: VerificationCompletedEvent[] = [];
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    maxBodyBytes: LIMIT,
    ...options,
  });
  receiver.on('verification.completed', (event) => {
    events.push(event);
  });
  return { receiver, events };
}

interface Answer {
  status: number;
  json: Record<string, unknown>;
}

async function answerOf(response: Response): Promise<Answer> {
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown>,
  };
}

/**
 * A request with exact bytes and their Content-Length, as a server hands it over (a
 * Request built in-process has no Content-Length of its own).
 */
function exactRequest(
  path: string,
  delivery: { body: Uint8Array; headers: Record<string, string> },
) {
  return new Request(`${URL_BASE}${path}`, {
    method: 'POST',
    headers: { ...delivery.headers, 'content-length': String(delivery.body.byteLength) },
    body: new Uint8Array(delivery.body),
  });
}

/** A request whose body is a stream: no Content-Length, as with chunked transfer. */
function streamedRequest(
  path: string,
  headers: Record<string, string>,
  body: ReadableStream<Uint8Array>,
): Request {
  const init: RequestInit & { duplex: 'half' } = { method: 'POST', headers, body, duplex: 'half' };
  return new Request(`${URL_BASE}${path}`, init);
}

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** A stream of `total` bytes in 8 KiB chunks that counts what was pulled from it. */
function countingStream(total: number) {
  let pulled = 0;
  const chunk = new Uint8Array(8 * 1024).fill(0x20);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) {
        controller.close();
        return;
      }
      controller.enqueue(chunk.slice());
      pulled += chunk.byteLength;
    },
  });
  return { stream, pulled: () => pulled };
}

/** An app where an earlier middleware reads the body the way `read` does. */
function appReadingFirst(
  receiver: ReturnType<typeof setup>['receiver'],
  read: (c: Parameters<MiddlewareHandler>[0]) => Promise<unknown>,
) {
  const app = new Hono();
  app.use(async (c, next) => {
    await read(c);
    await next();
  });
  app.post(WEBHOOK, verificationWebhook(receiver));
  return app;
}

function fakeExecutionContext(waited: Promise<unknown>[]): ExecutionContext {
  return {
    waitUntil(promise) {
      waited.push(promise);
    },
    passThroughOnException() {},
    props: {},
  };
}

export const honoCases: PortableCase[] = [
  {
    name: 'app.post(path, middleware): a signed webhook is 200 and delivered with its exact data',
    async run() {
      const { receiver, events } = setup();
      const app = new Hono();
      app.post('/hooks/any-path', verificationWebhook(receiver));
      const payload = fixturePayload({ external_user_id: 'ユーザー😀' });
      const delivery = await signedDelivery(payload, {
        secret: SECRET,
        rawBody: JSON.stringify(payload, null, 2),
      });
      const answer = await answerOf(await app.fetch(exactRequest('/hooks/any-path', delivery)));
      checkEqual(answer.status, 200, 'status');
      checkEqual(answer.json.received, true, 'acknowledged');
      checkEqual(events.length, 1, 'delivered once');
      checkEqual(JSON.stringify(events[0]?.data), JSON.stringify(payload), 'exact data');
    },
  },
  {
    name: 'on Bun.serve (the server is c.env) a webhook is read whole and delivered with its exact data; elsewhere app.fetch alone',
    async run() {
      const bun = bunRuntime();
      const { receiver, events } = setup();
      const app = new Hono();
      app.post(WEBHOOK, verificationWebhook(receiver));
      const payload = fixturePayload({ external_user_id: 'bun-served' });
      const delivery = await signedDelivery(payload, {
        secret: SECRET,
        rawBody: JSON.stringify(payload),
      });
      const server = bun?.serve({ hostname: '127.0.0.1', port: 0, fetch: app.fetch });
      try {
        const response = server
          ? await fetch(`http://127.0.0.1:${server.port}${WEBHOOK}`, {
              method: 'POST',
              headers: delivery.headers,
              body: new Uint8Array(delivery.body),
            })
          : await app.fetch(exactRequest(WEBHOOK, delivery));
        checkEqual(response.status, 200, 'status');
        checkEqual(events.length, 1, 'delivered once');
        checkEqual(JSON.stringify(events[0]?.data), JSON.stringify(payload), 'exact data');
      } finally {
        server?.stop(true);
      }
    },
  },
  {
    name: 'app.use(middleware): other paths pass on, a GET on the path is 405',
    async run() {
      const { receiver, events } = setup();
      const app = new Hono();
      app.use(verificationWebhook(receiver));
      app.get('/health', (c) => c.text('ok'));
      const health = await app.request('/health');
      checkEqual(health.status, 200, 'own route status');
      checkEqual(await health.text(), 'ok', 'own route body');
      const get = await answerOf(await app.request(WEBHOOK));
      checkEqual(get.status, 405, 'GET status');
      checkEqual(get.json.error, 'method_not_allowed', 'GET code');
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      checkEqual((await app.fetch(exactRequest(WEBHOOK, delivery))).status, 200, 'POST status');
      checkEqual(events.length, 1, 'delivered once');
    },
  },
  {
    name: 'tampered, unsigned and wrongly signed webhooks are 401 and never delivered',
    async run() {
      const { receiver, events } = setup();
      const app = new Hono();
      app.post(WEBHOOK, verificationWebhook(receiver));
      const tampered = await tamperedDelivery(fixturePayload(), { secret: SECRET });
      const wrong = await signedDelivery(fixturePayload(), { secret: 'whsec_other' });
      const unsigned = { body: wrong.body, headers: { 'content-type': 'application/json' } };
      const codes: unknown[] = [];
      for (const delivery of [tampered, wrong, unsigned]) {
        const answer = await answerOf(await app.fetch(exactRequest(WEBHOOK, delivery)));
        checkEqual(answer.status, 401, 'status');
        codes.push(answer.json.error);
      }
      checkEqual(
        codes.join(),
        'signature_invalid,signature_invalid,signature_missing',
        'error codes',
      );
      checkEqual(events.length, 0, 'nothing delivered');
    },
  },
  {
    name: 'a Content-Length over the limit is 413 without reading the body',
    async run() {
      const { receiver } = setup();
      const app = new Hono();
      app.post(WEBHOOK, verificationWebhook(receiver));
      const body = countingStream(LIMIT * 10);
      const request = streamedRequest(
        WEBHOOK,
        { 'x-webhook-signature': '00', 'content-length': String(LIMIT * 10) },
        body.stream,
      );
      const answer = await answerOf(await app.fetch(request));
      checkEqual(answer.status, 413, 'status');
      checkEqual(answer.json.error, 'payload_too_large', 'code');
      // Some runtimes drop a Content-Length set by hand; the streaming limit then applies.
      if (request.headers.get('content-length') !== null) {
        check(body.pulled() <= 16 * 1024, `read ${body.pulled()} bytes of a refused body`);
      }
    },
  },
  {
    name: 'a streamed body without Content-Length is cut off once it passes the limit',
    async run() {
      const { receiver } = setup();
      const app = new Hono();
      app.post(WEBHOOK, verificationWebhook(receiver));
      const total = LIMIT * 10;
      const body = countingStream(total);
      const answer = await answerOf(
        await app.fetch(streamedRequest(WEBHOOK, { 'x-webhook-signature': '00' }, body.stream)),
      );
      checkEqual(answer.status, 413, 'status');
      check(body.pulled() < total / 2, `pulled ${body.pulled()} of ${total} bytes`);
    },
  },
  {
    name: 'a body of exactly the limit, streamed, is accepted',
    async run() {
      const { receiver, events } = setup();
      const app = new Hono();
      app.post(WEBHOOK, verificationWebhook(receiver));
      const payload = fixturePayload();
      const json = JSON.stringify(payload);
      const delivery = await signedDelivery(payload, {
        secret: SECRET,
        rawBody: json + ' '.repeat(LIMIT - json.length),
      });
      const response = await app.fetch(
        streamedRequest(WEBHOOK, delivery.headers, streamOf(delivery.body)),
      );
      checkEqual(response.status, 200, 'status');
      checkEqual(events.length, 1, 'delivered');
    },
  },
  {
    name: 'an earlier c.req.json() with Content-Length: its cached text is provably the bytes',
    async run() {
      const { receiver, events } = setup();
      const app = appReadingFirst(receiver, (c) => c.req.json());
      const payload = fixturePayload({ external_user_id: 'ünïcødé' });
      const delivery = await signedDelivery(payload, {
        secret: SECRET,
        rawBody: JSON.stringify(payload, null, 1),
      });
      const request = exactRequest(WEBHOOK, delivery);
      // Some runtimes drop a Content-Length set by hand: then nothing proves the text exact.
      const provable = request.headers.get('content-length') !== null;
      checkEqual((await app.fetch(request)).status, provable ? 200 : 500, 'status');
      checkEqual(events.length, provable ? 1 : 0, 'delivered');
    },
  },
  {
    name: 'an earlier c.req.json() on a streamed body: 500 raw_body_unavailable with the fix',
    async run() {
      const { receiver, events } = setup();
      const app = appReadingFirst(receiver, (c) => c.req.json());
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const answer = await answerOf(
        await app.fetch(streamedRequest(WEBHOOK, delivery.headers, streamOf(delivery.body))),
      );
      checkEqual(answer.status, 500, 'status');
      checkEqual(answer.json.error, 'raw_body_unavailable', 'code');
      check(String(answer.json.message).includes('no Content-Length'), 'says why');
      check(String(answer.json.message).includes('c.req.arrayBuffer()'), 'says how to fix it');
      checkEqual(events.length, 0, 'nothing delivered');
    },
  },
  {
    name: 'an earlier c.req.arrayBuffer() on a streamed body: its bytes are used',
    async run() {
      const { receiver, events } = setup();
      const app = appReadingFirst(receiver, (c) => c.req.arrayBuffer());
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const response = await app.fetch(
        streamedRequest(WEBHOOK, delivery.headers, streamOf(delivery.body)),
      );
      checkEqual(response.status, 200, 'status');
      checkEqual(events.length, 1, 'delivered');
    },
  },
  {
    name: 'only parsed JSON in the body cache (older Hono): 500 naming what is cached',
    async run() {
      const { receiver } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const app = appReadingFirst(receiver, async (c) => {
        const parsed: unknown = await c.req.raw.clone().json();
        c.req.bodyCache.json = parsed;
      });
      const answer = await answerOf(await app.fetch(exactRequest(WEBHOOK, delivery)));
      checkEqual(answer.status, 500, 'status');
      checkEqual(answer.json.error, 'raw_body_unavailable', 'code');
      check(String(answer.json.message).includes('(json)'), 'names the cached kind');
    },
  },
  {
    name: 'a body read from c.req.raw directly: 500 raw_body_unavailable with the fix',
    async run() {
      const { receiver } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const app = appReadingFirst(receiver, (c) => c.req.raw.text());
      const answer = await answerOf(await app.fetch(exactRequest(WEBHOOK, delivery)));
      checkEqual(answer.status, 500, 'status');
      checkEqual(answer.json.error, 'raw_body_unavailable', 'code');
      check(String(answer.json.message).includes('c.req.raw'), 'names what happened');
    },
  },
  {
    name: 'passThrough: later handlers get c.get("verification") and can still read the body',
    async run() {
      const { receiver } = setup();
      const app = new Hono<VerificationEnv>();
      app.post(WEBHOOK, verificationWebhook(receiver, { passThrough: true }), async (c) => {
        const again = (await c.req.json()) as { external_user_id: string };
        return c.json({
          fromEvent: c.get('verification').data.external_user_id,
          fromBody: again.external_user_id,
        });
      });
      const payload = fixturePayload({ external_user_id: 'user_later' });
      const delivery = await signedDelivery(payload, { secret: SECRET });
      const answer = await answerOf(await app.fetch(exactRequest(WEBHOOK, delivery)));
      checkEqual(answer.status, 200, 'status');
      checkEqual(answer.json.fromEvent, 'user_later', 'event');
      checkEqual(answer.json.fromBody, 'user_later', 'body read again');
    },
  },
  {
    name: 'invalid JSON is 400, a throwing handler 500, a repeat 200 duplicate',
    async run() {
      const { receiver, events } = setup();
      const app = new Hono();
      app.post(WEBHOOK, verificationWebhook(receiver));
      const invalid = await signedDelivery(fixturePayload(), { secret: SECRET, rawBody: '{"a":' });
      checkEqual((await app.fetch(exactRequest(WEBHOOK, invalid))).status, 400, 'invalid JSON');
      const good = await signedDelivery(fixturePayload(), { secret: SECRET });
      checkEqual((await app.fetch(exactRequest(WEBHOOK, good))).status, 200, 'first');
      const again = await answerOf(await app.fetch(exactRequest(WEBHOOK, good)));
      checkEqual(again.json.duplicate, true, 'second is a duplicate');
      checkEqual(events.length, 1, 'handled once');
      const failing = setup();
      failing.receiver.on('verification.completed', () => {
        throw new Error('handler failed on purpose');
      });
      const failingApp = new Hono();
      failingApp.post(WEBHOOK, verificationWebhook(failing.receiver));
      const failed = await answerOf(await failingApp.fetch(exactRequest(WEBHOOK, good)));
      checkEqual(failed.status, 500, 'handler failure status');
      checkEqual(failed.json.error, 'handler_failed', 'handler failure code');
    },
  },
  {
    name: "a slow handler is acknowledged with 202 and kept alive with the platform's waitUntil",
    async run() {
      // The handler holds until released and the deadline passes only when the test clock
      // moves: the 202 is decided by the order of events, never by which timer wins.
      const clock = createTestClock();
      const { receiver } = setup({ ackAfterMs: 50, clock });
      let started = false;
      let finished = false;
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      receiver.on('verification.completed', async () => {
        started = true;
        await released;
        finished = true;
      });
      const app = new Hono();
      app.post(WEBHOOK, verificationWebhook(receiver));
      const waited: Promise<unknown>[] = [];
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const answering = app.fetch(
        exactRequest(WEBHOOK, delivery),
        {},
        fakeExecutionContext(waited),
      );
      while (!started) await clock.advance(0);
      await clock.advance(50);
      const response = await answering;
      checkEqual(response.status, 202, 'status');
      checkEqual(finished, false, 'answered before the handler finished');
      check(waited.length >= 1, 'waitUntil received the delivery');
      release();
      await Promise.all(waited);
      checkEqual(finished, true, 'the awaited work includes the handler');
    },
  },
];
