import {
  ConfigurationError,
  createReceiver,
  MemoryStore,
  type ReceiverOptions,
  type VerificationCompletedEvent,
} from '../../src/index.js';
import {
  createTestClock,
  fixturePayload,
  signedDelivery,
  tamperedDelivery,
} from '../../src/testing/index.js';
import { check, checkEqual, checkRejects, type PortableCase } from './case.js';

const SECRET = 'whsec_receiver_cases_9f8e7d';

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
      const clock = createTestClock();
      const { receiver, events, errors } = setup({ retryScheduleMs: [30], clock });
      let failures = 1;
      receiver.on('verification.completed', () => {
        if (failures-- > 0) throw new Error('database down');
      });
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const response = await receiver.receive(delivery);
      checkEqual(response.status, 500, 'status');
      checkEqual(body(response).error, 'handler_failed', 'code');
      checkEqual(errors.length, 1, 'error reported');
      await clock.advance(29);
      checkEqual((await receiver.sweep()).leased, 0, 'not due before its retry time');
      await clock.advance(1);
      const report = await receiver.sweep();
      checkEqual(report.delivered, 1, 'delivered on retry');
      checkEqual(events.at(-1)!.attempt, 2, 'second attempt');
      await clock.advance(60_000);
      checkEqual((await receiver.sweep()).leased, 0, 'nothing left after success');
    },
  },
  {
    name: 'a handler failing on every attempt is given up after maxDeliveryAttempts',
    async run() {
      const clock = createTestClock();
      const { receiver, errors } = setup({
        retryScheduleMs: [10],
        maxDeliveryAttempts: 3,
        clock,
      });
      const undeliverable: { reason: string; attempt: number; error: unknown }[] = [];
      receiver.on('verification.completed', () => {
        throw new Error('always down');
      });
      receiver.on('verification.undeliverable', ({ reason, event, error }) => {
        undeliverable.push({ reason, attempt: event.attempt, error });
      });
      await receiver.receive(await signedDelivery(fixturePayload(), { secret: SECRET }));
      for (let attempt = 2; attempt <= 3; attempt++) {
        await clock.advance(10);
        checkEqual((await receiver.sweep()).failed, 1, `attempt ${attempt} failed`);
      }
      checkEqual(errors.length, 3, 'every failure reported');
      checkEqual(undeliverable.length, 1, 'undeliverable emitted once');
      checkEqual(undeliverable[0]!.reason, 'attempts_exhausted', 'reason');
      checkEqual(undeliverable[0]!.attempt, 3, 'on the last attempt');
      checkEqual((undeliverable[0]!.error as Error).message, 'always down', 'last error');
      await clock.advance(24 * 60 * 60 * 1000);
      checkEqual((await receiver.sweep()).leased, 0, 'never retried again');
    },
  },
  {
    name: 'a slow handler gets 202 after ackAfterMs and still completes once',
    async run() {
      const clock = createTestClock();
      const { receiver } = setup({ ackAfterMs: 40, clock });
      let release!: () => void;
      const handlerMayFinish = new Promise<void>((resolve) => {
        release = resolve;
      });
      let finished!: () => void;
      const handlerFinished = new Promise<void>((resolve) => {
        finished = resolve;
      });
      let runs = 0;
      let started!: () => void;
      const handlerStarted = new Promise<void>((resolve) => {
        started = resolve;
      });
      receiver.on('verification.completed', async () => {
        runs += 1;
        started();
        await handlerMayFinish;
        finished();
      });
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const answer = receiver.receive(delivery);
      // The acknowledgement deadline is armed just before handlers start, after store work
      // that takes turns of its own: the clock moves only once they have started.
      await handlerStarted;
      await clock.advance(39);
      let answered = false;
      void answer.then(() => {
        answered = true;
      });
      await clock.advance(0);
      checkEqual(answered, false, 'no answer before ackAfterMs');
      await clock.advance(1);
      const response = await answer;
      checkEqual(response.status, 202, 'status');
      release();
      await handlerFinished;
      await clock.advance(0);
      checkEqual(runs, 1, 'finished in the background, once');
      await clock.advance(24 * 60 * 60 * 1000);
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
    name: 'error contexts name a session by a short token id, never by its usable token',
    async run() {
      const client = { apiKey: 'fv_test_unused', baseUrl: 'http://127.0.0.1:9' };
      const { receiver } = setup({ client, confirmWebhooks: false });
      const contexts: unknown[] = [];
      receiver.on('error', (_error, context) => {
        contexts.push(context);
      });
      receiver.on('verification.completed', () => {
        throw new Error('database down');
      });
      const token = 'tok_pending_0123456789abcdefghijklmnop';
      await receiver.track(token, 'user_123');
      await receiver.receive(await signedDelivery(fixturePayload(), { secret: SECRET }));
      checkEqual(contexts.length, 1, 'one report');
      const context = contexts[0] as { tokenId?: string; eventId?: string; stage?: string };
      checkEqual(context.stage, 'handler', 'stage');
      checkEqual(context.tokenId, 'tok_pe…', 'short token id');
      check(typeof context.eventId === 'string', 'event id given');
      check(!('sessionToken' in context), 'no sessionToken field');
      const { event: _event, ...rest } = context as Record<string, unknown>;
      check(!JSON.stringify(rest).includes(token), 'the token appears nowhere in the context');
    },
  },
  {
    name: 'maxOpenPerUser: a user starting one session too many gives the oldest up, with an event',
    async run() {
      const client = { apiKey: 'fv_test_unused', baseUrl: 'http://127.0.0.1:9' };
      const { receiver } = setup({ client, maxOpenPerUser: 2 });
      const expired: { token: string; reason: string }[] = [];
      receiver.on('verification.expired', (event) => {
        expired.push({ token: event.sessionToken, reason: event.reason });
      });
      await receiver.track('tok_first', 'alice');
      await receiver.track('tok_second', 'alice');
      await receiver.track('tok_bob', 'bob');
      checkEqual(expired.length, 0, 'within the bound');
      await receiver.track('tok_third', 'alice');
      checkEqual(
        JSON.stringify(expired),
        JSON.stringify([{ token: 'tok_first', reason: 'displaced' }]),
        'oldest displaced',
      );
    },
  },
  {
    name: 'a webhook is matched to the one tracked session of its user',
    async run() {
      // A client that is never called: tracking needs one, this test needs no service.
      const client = { apiKey: 'fv_test_unused', baseUrl: 'http://127.0.0.1:9' };
      const { receiver, events } = setup({ client, confirmWebhooks: false });
      await receiver.track('tok_abc', 'user_123');
      await receiver.receive(await signedDelivery(fixturePayload(), { secret: SECRET }));
      checkEqual(events[0]!.sessionToken, 'tok_abc', 'session token');
    },
  },
  {
    name: 'an escaped __proto__ in a signed webhook never reaches the handler',
    async run() {
      const { receiver, events } = setup();
      const rawBody = `{"\\u005f\\u005fproto__":{"isAdmin":true},${JSON.stringify(fixturePayload()).slice(1)}`;
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET, rawBody });
      checkEqual((await receiver.receive(delivery)).status, 200, 'status');
      checkEqual(events.length, 1, 'delivered');
      const data = events[0]!.data;
      check(!Object.hasOwn(data, '__proto__'), 'no own __proto__ key');
      check(!Object.hasOwn(data.extra, '__proto__'), 'none among the extra fields');
      checkEqual(Object.getPrototypeOf(data), Object.prototype, 'plain object');
      const merged = Object.assign({}, data, data.extra) as Record<string, unknown>;
      checkEqual(merged.isAdmin, undefined, 'Object.assign does not pollute');
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
