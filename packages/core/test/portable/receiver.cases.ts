import {
  ConfigurationError,
  createReceiver,
  MemoryStore,
  type ReceiverOptions,
  type VerificationCompletedEvent,
} from '../../src/index.js';
import { fixturePayload, signedDelivery, tamperedDelivery } from '../../src/testing/index.js';
import { check, checkEqual, checkRejects, type PortableCase } from './case.js';

const SECRET = 'whsec_receiver_cases_9f8e7d';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function setup(options: ReceiverOptions = {}) {
  const events: VerificationCompletedEvent[] = [];
  const errors: unknown[] = [];
  const logs: string[] = [];
  const write = (message: string, fields?: Record<string, unknown>) =>
    logs.push(`${message} ${JSON.stringify(fields ?? {})}`);
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    logger: { debug: write, info: write, warn: write, error: write },
    ...options,
  });
  receiver.on('verification.completed', (event) => {
    events.push(event);
  });
  receiver.on('error', (error) => {
    errors.push(error);
  });
  return { receiver, events, errors, logs };
}

const body = (response: { body: string }) => JSON.parse(response.body) as Record<string, unknown>;

export const receiverCases: PortableCase[] = [
  {
    name: 'a correctly signed webhook is 200 and reaches the handler typed',
    async run() {
      const { receiver, events } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const response = await receiver.receive(delivery);
      checkEqual(response.status, 200, 'status');
      checkEqual(body(response).received, true, 'body');
      checkEqual(events.length, 1, 'delivered once');
      checkEqual(events[0]!.source, 'webhook', 'source');
      checkEqual(events[0]!.data.external_user_id, 'user_123', 'data');
      checkEqual(events[0]!.attempt, 1, 'attempt');
      checkEqual(events[0]!.secretLabel, 'secret#0', 'secret label');
      checkEqual(response.event?.data.external_user_id, 'user_123', 'event on the response');
    },
  },
  {
    name: 'missing signature is 401 signature_missing and no handler runs',
    async run() {
      const { receiver, events } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const response = await receiver.receive({
        ...delivery,
        headers: { 'content-type': 'application/json' },
      });
      checkEqual(response.status, 401, 'status');
      checkEqual(body(response).error, 'signature_missing', 'code');
      checkEqual(events.length, 0, 'no delivery');
    },
  },
  {
    name: 'tampered body, wrong secret and doubled header are 401 signature_invalid',
    async run() {
      const { receiver, events } = setup();
      const tampered = await tamperedDelivery(fixturePayload(), { secret: SECRET });
      const wrong = await signedDelivery(fixturePayload(), { secret: 'another' });
      const good = await signedDelivery(fixturePayload(), { secret: SECRET });
      const doubled = {
        ...good,
        headers: { 'x-webhook-signature': [good.signature, good.signature] },
      };
      for (const request of [tampered, wrong, doubled]) {
        const response = await receiver.receive(request);
        checkEqual(response.status, 401, 'status');
        checkEqual(body(response).error, 'signature_invalid', 'code');
      }
      checkEqual(events.length, 0, 'no delivery');
    },
  },
  {
    name: 'a method other than POST is 405 with Allow: POST',
    async run() {
      const { receiver } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const response = await receiver.receive({ ...delivery, method: 'GET' });
      checkEqual(response.status, 405, 'status');
      checkEqual(response.headers.allow, 'POST', 'allow');
    },
  },
  {
    name: 'a body over maxBodyBytes is 413',
    async run() {
      const { receiver, events } = setup({ maxBodyBytes: 100 });
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const response = await receiver.receive(delivery);
      checkEqual(response.status, 413, 'status');
      checkEqual(body(response).error, 'payload_too_large', 'code');
      checkEqual(events.length, 0, 'no delivery');
    },
  },
  {
    name: 'valid signature with invalid JSON or fields is 400 payload_invalid',
    async run() {
      const { receiver, events } = setup();
      const notJson = await signedDelivery({}, { secret: SECRET, rawBody: '{not json' });
      const badField = await signedDelivery(
        { ...fixturePayload(), status: 'maybe' },
        { secret: SECRET },
      );
      const first = await receiver.receive(notJson);
      checkEqual(first.status, 400, 'status');
      checkEqual(body(first).error, 'payload_invalid', 'code');
      const second = await receiver.receive(badField);
      checkEqual(second.status, 400, 'status');
      check(String(body(second).message).includes('"status"'), 'message names the field');
      checkEqual(events.length, 0, 'no delivery');
    },
  },
  {
    name: 'an unknown event value is acknowledged and ignored',
    async run() {
      const { receiver, events } = setup();
      const delivery = await signedDelivery({ event: 'verification.started' }, { secret: SECRET });
      const response = await receiver.receive(delivery);
      checkEqual(response.status, 200, 'status');
      checkEqual(body(response).ignored, true, 'ignored');
      checkEqual(events.length, 0, 'no delivery');
    },
  },
  {
    name: 'concurrent identical deliveries are handled once',
    async run() {
      const { receiver, events } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const responses = await Promise.all(
        Array.from({ length: 12 }, () => receiver.receive(delivery)),
      );
      check(
        responses.every((r) => r.status === 200),
        'all acknowledged',
      );
      checkEqual(events.length, 1, 'handled once');
      checkEqual(
        responses.filter((r) => body(r).duplicate === true).length,
        11,
        'eleven duplicates',
      );
    },
  },
  {
    name: 'a replay after success is acknowledged and not handled again',
    async run() {
      const { receiver, events } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      await receiver.receive(delivery);
      const replay = await receiver.receive(delivery);
      checkEqual(replay.status, 200, 'status');
      checkEqual(body(replay).duplicate, true, 'duplicate');
      checkEqual(events.length, 1, 'handled once');
    },
  },
  {
    name: 'a throwing handler answers 500, reports the error, and the result is retried',
    async run() {
      const { receiver, events, errors } = setup({ retryScheduleMs: [30] });
      let failures = 1;
      receiver.on('verification.completed', () => {
        if (failures-- > 0) throw new Error('database down');
      });
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const response = await receiver.receive(delivery);
      checkEqual(response.status, 500, 'status');
      checkEqual(body(response).error, 'handler_failed', 'code');
      checkEqual(errors.length, 1, 'error reported');
      checkEqual((await receiver.sweep()).leased, 0, 'not due before its retry time');
      await sleep(60);
      const report = await receiver.sweep();
      checkEqual(report.delivered, 1, 'delivered on retry');
      checkEqual(events.at(-1)!.attempt, 2, 'second attempt');
      await sleep(60);
      checkEqual((await receiver.sweep()).leased, 0, 'nothing left after success');
    },
  },
  {
    name: 'a slow handler gets 202 after ackAfterMs and still completes once',
    async run() {
      const { receiver } = setup({ ackAfterMs: 40 });
      let finished = 0;
      receiver.on('verification.completed', async () => {
        await sleep(120);
        finished += 1;
      });
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const response = await receiver.receive(delivery);
      checkEqual(response.status, 202, 'status');
      checkEqual(finished, 0, 'not yet finished');
      await sleep(200);
      checkEqual(finished, 1, 'finished in the background');
      checkEqual((await receiver.sweep()).leased, 0, 'nothing left to retry');
    },
  },
  {
    name: 'rotation: a webhook signed with the old secret is accepted and labelled',
    async run() {
      const { receiver, events } = setup({
        secret: [
          { label: 'current', secret: 'new_secret' },
          { label: 'previous', secret: SECRET },
        ],
      });
      const response = await receiver.receive(
        await signedDelivery(fixturePayload(), { secret: SECRET }),
      );
      checkEqual(response.status, 200, 'status');
      checkEqual(events[0]!.secretLabel, 'previous', 'label');
    },
  },
  {
    name: 'a webhook is matched to the one tracked session of its user',
    async run() {
      // A client that is never called: tracking needs one, this test needs no service.
      const client = { apiKey: 'fv_test_unused', baseUrl: 'http://127.0.0.1:9' };
      const { receiver, events } = setup({ client });
      await receiver.track('tok_abc', 'user_123');
      await receiver.receive(await signedDelivery(fixturePayload(), { secret: SECRET }));
      checkEqual(events[0]!.sessionToken, 'tok_abc', 'session token');
    },
  },
  {
    name: 'logs never contain the secret or the signed image URL query',
    async run() {
      const { receiver, logs } = setup({ retryScheduleMs: [10] });
      receiver.on('verification.completed', () => {
        throw new Error('boom');
      });
      await receiver.receive(await signedDelivery(fixturePayload(), { secret: SECRET }));
      await receiver.receive(await tamperedDelivery(fixturePayload(), { secret: SECRET }));
      check(logs.length >= 2, 'something was logged');
      const all = logs.join('\n');
      check(!all.includes(SECRET), 'no secret in logs');
      check(!all.includes('sig=x'), 'no signed URL query in logs');
    },
  },
  {
    name: 'no secret configured is a ConfigurationError naming the variable',
    async run() {
      const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process
        ?.env;
      const saved = env?.FACEVERIFY_WEBHOOK_SECRET;
      if (env) delete env.FACEVERIFY_WEBHOOK_SECRET;
      try {
        await checkRejects(
          () => createReceiver({ client: false }),
          (error) =>
            error instanceof ConfigurationError &&
            error.message.includes('FACEVERIFY_WEBHOOK_SECRET'),
          'missing secret',
        );
      } finally {
        if (env && saved !== undefined) env.FACEVERIFY_WEBHOOK_SECRET = saved;
      }
    },
  },
];
