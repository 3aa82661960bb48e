import {
  createReceiver,
  MemoryStore,
  type ReceiverOptions,
  type VerificationCompletedEvent,
} from '@faceverify/core';
import { fixturePayload, signedDelivery, tamperedDelivery } from '@faceverify/core/testing';
import { bunRuntime } from '../../../core/test/portable/bun-runtime.js';
// One portable-case format for the whole repository: the runtimes runner reads it.
import { check, checkEqual, type PortableCase } from '../../../core/test/portable/case.js';
import { verificationWebhook } from '../../src/index.js';

const SECRET = 'whsec_fetch_portable_6b2d94';
const LIMIT = 32 * 1024;
const URL_BASE = 'http://fetch.test/webhooks/verification';

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

async function answerOf(response: Response) {
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as Record<string, unknown>,
  };
}

/** Exact bytes with their Content-Length, as a server hands a request over. */
function exactRequest(delivery: { body: Uint8Array; headers: Record<string, string> }) {
  return new Request(URL_BASE, {
    method: 'POST',
    headers: { ...delivery.headers, 'content-length': String(delivery.body.byteLength) },
    body: new Uint8Array(delivery.body),
  });
}

function streamedRequest(headers: Record<string, string>, body: ReadableStream<Uint8Array>) {
  const init: RequestInit & { duplex: 'half' } = { method: 'POST', headers, body, duplex: 'half' };
  return new Request(URL_BASE, init);
}

const FAR_PAST = LIMIT * 10;

/**
 * The signed body, then far more than it declared, built in the process: not framed by HTTP,
 * so only the reader can stop at the declared length. `pulled()` counts what was read.
 */
function longerThanDeclared(delivery: { body: Uint8Array; headers: Record<string, string> }) {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= FAR_PAST) return controller.close();
      const chunk = pulled === 0 ? delivery.body.slice() : new Uint8Array(8 * 1024);
      controller.enqueue(chunk);
      pulled += chunk.byteLength;
    },
  });
  const headers = { ...delivery.headers, 'content-length': String(delivery.body.byteLength) };
  return { request: streamedRequest(headers, stream), pulled: () => pulled };
}

export const fetchCases: PortableCase[] = [
  {
    name: 'a signed webhook is 200 and reaches the handler typed, with its exact data',
    async run() {
      const { receiver } = setup();
      const seen: string[] = [];
      const handler = verificationWebhook(receiver).on('verification.completed', ({ data }) => {
        seen.push(data.external_user_id);
      });
      const payload = fixturePayload({ external_user_id: 'ユーザー😀' });
      const delivery = await signedDelivery(payload, {
        secret: SECRET,
        rawBody: JSON.stringify(payload, null, 2),
      });
      const answer = await answerOf(await handler(exactRequest(delivery)));
      checkEqual(answer.status, 200, 'status');
      checkEqual(answer.json.received, true, 'acknowledged');
      checkEqual(seen[0], 'ユーザー😀', 'typed event');
      checkEqual(handler.receiver, receiver, '.receiver');
    },
  },
  {
    name: 'a body changed after signing is 401 signature_invalid and reaches no handler',
    async run() {
      const { receiver, events } = setup();
      const delivery = await tamperedDelivery(fixturePayload(), { secret: SECRET });
      const answer = await answerOf(await verificationWebhook(receiver)(exactRequest(delivery)));
      checkEqual(answer.status, 401, 'status');
      checkEqual(answer.json.error, 'signature_invalid', 'code');
      checkEqual(events.length, 0, 'no delivery');
    },
  },
  {
    name: 'GET is 405 with Allow: POST',
    async run() {
      const { receiver } = setup();
      const response = await verificationWebhook(receiver)(new Request(URL_BASE));
      checkEqual(response.status, 405, 'status');
      checkEqual(response.headers.get('allow'), 'POST', 'allow');
    },
  },
  {
    name: 'a chunked body over the limit is 413 and is not read to its end',
    async run() {
      const { receiver, events } = setup();
      let pulled = 0;
      const chunk = new Uint8Array(8 * 1024).fill(0x20);
      const total = LIMIT * 10;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulled >= total) return controller.close();
          controller.enqueue(chunk.slice());
          pulled += chunk.byteLength;
        },
      });
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const answer = await answerOf(
        await verificationWebhook(receiver)(streamedRequest(delivery.headers, stream)),
      );
      checkEqual(answer.status, 413, 'status');
      checkEqual(answer.json.error, 'payload_too_large', 'code');
      check(pulled < total / 2, `read ${pulled} of ${total} bytes: far past the limit`);
      checkEqual(events.length, 0, 'no delivery');
    },
  },
  {
    name: 'a body longer than its Content-Length is refused without being read past it',
    async run() {
      const { receiver, events } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const longer = longerThanDeclared(delivery);
      const answer = await answerOf(await verificationWebhook(receiver)(longer.request));
      checkEqual(answer.status, 400, 'status');
      checkEqual(answer.json.error, 'body_unreadable', 'code');
      const pulled = longer.pulled();
      check(pulled < FAR_PAST / 2, `read ${pulled} of ${FAR_PAST} bytes: far past Content-Length`);
      checkEqual(events.length, 0, 'no delivery');
    },
  },
  {
    name: 'on Bun.serve a webhook from a connection is read whole and accepted; a Request built in the process and handed over with the server is still read within its Content-Length',
    async run() {
      const bun = bunRuntime();
      const { receiver, events } = setup();
      const handler = verificationWebhook(receiver) as (
        request: Request,
        context?: unknown,
      ) => Promise<Response>;
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      // On Bun the server itself is the handler's second argument; elsewhere there is none.
      const server = bun?.serve({
        hostname: '127.0.0.1',
        port: 0,
        fetch: (request, self) => handler(request, self),
      });
      try {
        if (server) {
          const response = await fetch(`http://127.0.0.1:${server.port}/webhooks/verification`, {
            method: 'POST',
            headers: delivery.headers,
            body: new Uint8Array(delivery.body),
          });
          checkEqual(response.status, 200, 'a webhook through Bun.serve');
          checkEqual(events.length, 1, 'delivered');
        }
        // Bun's server does not vouch for a Request it did not parse (requestIP() is null).
        const longer = longerThanDeclared(delivery);
        const answer = await answerOf(await handler(longer.request, server));
        checkEqual(answer.status, 400, 'status');
        checkEqual(answer.json.error, 'body_unreadable', 'code');
        const pulled = longer.pulled();
        check(pulled < FAR_PAST / 2, `read ${pulled} of ${FAR_PAST} bytes: past Content-Length`);
      } finally {
        server?.stop(true);
      }
    },
  },
  {
    name: 'a body shorter than its Content-Length is 400 body_unreadable',
    async run() {
      const { receiver, events } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(delivery.body.slice());
          controller.close();
        },
      });
      const headers = {
        ...delivery.headers,
        'content-length': String(delivery.body.byteLength + 10),
      };
      const answer = await answerOf(
        await verificationWebhook(receiver)(streamedRequest(headers, stream)),
      );
      checkEqual(answer.status, 400, 'status');
      checkEqual(answer.json.error, 'body_unreadable', 'code');
      checkEqual(events.length, 0, 'no delivery');
    },
  },
  {
    name: 'a Request whose body was already read is 500 raw_body_unavailable with the fix',
    async run() {
      const { receiver } = setup();
      const request = exactRequest(await signedDelivery(fixturePayload(), { secret: SECRET }));
      await request.json();
      const answer = await answerOf(await verificationWebhook(receiver)(request));
      checkEqual(answer.status, 500, 'status');
      checkEqual(answer.json.error, 'raw_body_unavailable', 'code');
      check(String(answer.json.message).includes('request.clone()'), 'names the fix');
    },
  },
  {
    name: 'a body that stops arriving is 408 body_timeout after bodyTimeoutMs',
    async run() {
      const { receiver, events } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      // Half the body, then nothing: only the deadline can end the read.
      const stalled = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(delivery.body.slice(0, delivery.body.byteLength >> 1));
        },
      });
      const handler = verificationWebhook(receiver, { bodyTimeoutMs: 50 });
      const response = await handler(streamedRequest(delivery.headers, stalled));
      const answer = await answerOf(response);
      checkEqual(answer.status, 408, 'status');
      checkEqual(answer.json.error, 'body_timeout', 'code');
      checkEqual(response.headers.get('connection'), 'close', 'asks to close');
      checkEqual(events.length, 0, 'no delivery');
    },
  },
  {
    name: "handlers still running at the deadline are handed to the platform's waitUntil",
    async run() {
      const { receiver } = setup({ ackAfterMs: 20 });
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let finished = false;
      const handler = verificationWebhook(receiver).on('verification.completed', async () => {
        await released;
        finished = true;
      });
      const waited: Promise<unknown>[] = [];
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const answer = await answerOf(
        await handler(exactRequest(delivery), { waitUntil: (promise) => waited.push(promise) }),
      );
      checkEqual(answer.status, 202, 'acknowledged while handlers run');
      checkEqual(waited.length, 1, 'the delivery is handed to waitUntil');
      release();
      await waited[0];
      checkEqual(finished, true, 'the handler finished');
    },
  },
  {
    name: 'a second argument without waitUntil (Next.js passes { params }) is fine',
    async run() {
      const { receiver, events } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const handler = verificationWebhook(receiver) as (
        request: Request,
        context: { params: Promise<Record<string, string>> },
      ) => Promise<Response>;
      const response = await handler(exactRequest(delivery), { params: Promise.resolve({}) });
      checkEqual(response.status, 200, 'status');
      checkEqual(events.length, 1, 'delivered');
    },
  },
];
