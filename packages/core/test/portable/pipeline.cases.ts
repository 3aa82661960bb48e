import {
  type BodyRead,
  type BodyReading,
  readLimited,
  type WebhookPlatform,
} from '../../src/adapter/index.js';
import type { Timers } from '../../src/adapter/timers.js';
import {
  WebhookPipeline,
  type WebhookPipelineOptions,
} from '../../src/adapter/webhook-pipeline.js';
import {
  createReceiver,
  MemoryStore,
  type Receiver,
  type ReceiverResponse,
} from '../../src/index.js';
import { fixturePayload, signedDelivery } from '../../src/testing/index.js';
import { check, checkEqual, checkRejects, type PortableCase } from './case.js';

const SECRET = 'whsec_pipeline_cases_41c9e2';
const LIMIT = 1024;
const PATH = '/webhooks/verification';

/**
 * Timers that fire only when the case says so, so no case waits on a clock: `fireAll` moves
 * the time to each pending timer's due time and runs it.
 */
function manualTimers() {
  const pending = new Map<number, { callback: () => void; ms: number; at: number }>();
  let next = 0;
  let time = 0;
  const timers: Timers = {
    now: () => time,
    setTimeout(callback, ms) {
      next += 1;
      pending.set(next, { callback, ms, at: time + ms });
      return next;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
  };
  return {
    timers,
    pending,
    fireAll() {
      const due = [...pending.values()].sort((a, b) => a.at - b.at);
      pending.clear();
      for (const timer of due) {
        time = Math.max(time, timer.at);
        timer.callback();
      }
    },
  };
}

interface Outcome {
  answer: ReceiverResponse;
  close: boolean;
}

/** A request of the test platform: what it is, and what the pipeline did with it. */
interface TestRequest {
  method: string;
  headers: Headers;
  routed: boolean;
  path(): string | undefined;
  readBody(limit: number, signal: AbortSignal): BodyReading;
  respond(answer: ReceiverResponse, close: boolean): Outcome;
  kept: unknown[];
  reads: number;
  passedOn: boolean;
}

/** A platform whose request says what it is and how it is read. */
const platform: WebhookPlatform<TestRequest, TestRequest, undefined, Outcome> = {
  method: (request) => request.method,
  headers: (request) => request.headers,
  isRouted: (request) => request.routed,
  path: (request) => request.path(),
  readBody(request, limit, signal) {
    request.reads += 1;
    return request.readBody(limit, signal);
  },
  keep(request, event) {
    request.kept.push(event);
  },
  next(request) {
    request.passedOn = true;
  },
  respond: (request, answer, close) => request.respond(answer, close),
};

function exchange(
  overrides: Partial<Omit<TestRequest, 'kept' | 'reads' | 'passedOn'>> & { body?: Uint8Array } = {},
): TestRequest {
  const { body = new Uint8Array(0), ...rest } = overrides;
  return {
    method: 'POST',
    headers: new Headers(),
    routed: false,
    path: () => PATH,
    readBody: async (): Promise<BodyRead> => ({ kind: 'bytes', bytes: body }),
    respond: (answer, close) => ({ answer, close }),
    ...rest,
    kept: [],
    reads: 0,
    passedOn: false,
  };
}

function pipelineOf(
  receiver: Receiver | undefined,
  options: WebhookPipelineOptions<TestRequest> = {},
  timers?: Timers,
  on: WebhookPlatform<TestRequest, TestRequest, undefined, Outcome> = platform,
) {
  const pipeline = new WebhookPipeline(on, receiver, options, timers);
  return { handle: (request: TestRequest) => pipeline.handle(request, request, undefined) };
}

function setup(options: WebhookPipelineOptions<TestRequest> = {}, timers?: Timers) {
  const errors: string[] = [];
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    maxBodyBytes: LIMIT,
    logger: { debug() {}, info() {}, warn() {}, error: (message) => errors.push(message) },
  });
  return { pipeline: pipelineOf(receiver, options, timers), receiver, errors };
}

function pipeline(options: WebhookPipelineOptions<TestRequest> = {}, timers?: Timers) {
  return setup(options, timers).pipeline;
}

function errorCode(outcome: Outcome | undefined): unknown {
  return outcome?.answer
    ? (JSON.parse(outcome.answer.body) as { error?: unknown }).error
    : undefined;
}

/** A read that ends only when the pipeline aborts it: a sender that stopped sending. */
function stalledRead(seen: { signal?: AbortSignal }) {
  return (_limit: number, signal: AbortSignal) =>
    new Promise<BodyRead>((resolve) => {
      seen.signal = signal;
      signal.addEventListener('abort', () =>
        resolve({ kind: 'unreadable', reason: 'The request was aborted.' }),
      );
    });
}

export const pipelineCases: PortableCase[] = [
  {
    name: 'pipeline: a body not complete by bodyTimeoutMs is 408 body_timeout, closes, and aborts the read',
    async run() {
      const clock = manualTimers();
      const seen: { signal?: AbortSignal } = {};
      const handling = pipeline({ bodyTimeoutMs: 7_000 }, clock.timers).handle(
        exchange({ readBody: stalledRead(seen) }),
      );
      // Let the pipeline start the read and its deadline.
      await Promise.resolve();
      checkEqual(clock.pending.size, 1, 'one deadline is scheduled');
      checkEqual([...clock.pending.values()][0]?.ms, 7_000, 'the deadline is bodyTimeoutMs');
      clock.fireAll();
      const outcome = await handling;
      checkEqual(outcome?.answer.status, 408, 'status');
      checkEqual(errorCode(outcome), 'body_timeout', 'error code');
      checkEqual(outcome?.close, true, 'the connection is closed');
      checkEqual(seen.signal?.aborted, true, 'the reader is told to stop');
    },
  },
  {
    name: 'pipeline: bodyTimeoutMs defaults to 10 s, and a body in time cancels its deadline',
    async run() {
      const clock = manualTimers();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      let scheduled = 0;
      const timers: Timers = {
        now: clock.timers.now,
        setTimeout: (callback, ms) => {
          scheduled = ms;
          return clock.timers.setTimeout(callback, ms);
        },
        clearTimeout: clock.timers.clearTimeout,
      };
      const outcome = await pipeline({}, timers).handle(
        exchange({ body: delivery.body, headers: new Headers(delivery.headers) }),
      );
      checkEqual(outcome?.answer.status, 200, 'status');
      checkEqual(scheduled, 10_000, 'default deadline');
      // Deadlines share one timer: when it fires, nothing is due, and it is not set again.
      clock.fireAll();
      checkEqual(clock.pending.size, 0, 'no deadline is left behind');
    },
  },
  {
    name: 'pipeline: a Content-Length over the limit is 413 before the body is read, and closes',
    async run() {
      const ex = exchange({ headers: new Headers({ 'content-length': String(LIMIT + 1) }) });
      const outcome = await pipeline().handle(ex);
      checkEqual(outcome?.answer.status, 413, 'status');
      checkEqual(outcome?.close, true, 'close');
      checkEqual(ex.reads, 0, 'no read');
    },
  },
  {
    name: 'pipeline: a body a parser consumed is 500 raw_body_unavailable with the hint, logged once when signed, connection kept',
    async run() {
      const hint = 'Mount the webhook before the parser.';
      const { receiver, errors } = setup();
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const headers = new Headers(delivery.headers);
      // What the parser kept carries the signature: the service sent it.
      const readBody = async (): Promise<BodyRead> => ({
        kind: 'unavailable',
        hint,
        kept: delivery.body,
      });
      // A stranger's: no signature, or one that does not hold. Neither is logged.
      await pipelineOf(receiver).handle(exchange({ readBody }));
      const forged = new Headers({ 'x-webhook-signature': '0'.repeat(64) });
      await pipelineOf(receiver).handle(exchange({ readBody, headers: forged }));
      checkEqual(errors.length, 0, 'strangers log nothing');
      // Two adapters on one Receiver: the fix is still logged once.
      await pipelineOf(receiver).handle(exchange({ readBody, headers }));
      const outcome = await pipelineOf(receiver).handle(exchange({ readBody, headers }));
      checkEqual(errors.filter((line) => line.includes(hint)).length, 1, 'logged once');
      checkEqual(outcome?.answer.status, 500, 'status');
      checkEqual(errorCode(outcome), 'raw_body_unavailable', 'code');
      check(outcome?.answer.body.includes(hint), 'the hint is in the message');
      checkEqual(outcome?.close, false, 'nothing is left unread');
    },
  },
  {
    name: 'pipeline: an aborted body is 400 body_unreadable; a reader that throws is too',
    async run() {
      const reason = 'The request was aborted before its body was complete.';
      const aborted = await pipeline().handle(
        exchange({ readBody: async () => ({ kind: 'unreadable', reason }) }),
      );
      checkEqual(aborted?.answer.status, 400, 'status');
      checkEqual(errorCode(aborted), 'body_unreadable', 'code');
      check(aborted?.answer.body.includes(reason), 'says what happened');
      const thrown = await pipeline().handle(
        exchange({
          readBody: async () => {
            throw new Error('socket hang up');
          },
        }),
      );
      checkEqual(errorCode(thrown), 'body_unreadable', 'a throwing reader');
    },
  },
  {
    name: "pipeline: a reader's own promise of bytes is held to the Content-Length, and spent is told",
    async run() {
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const spent: Uint8Array[] = [];
      const telling = {
        ...platform,
        spent: (_request: TestRequest, bytes: Uint8Array) => void spent.push(bytes),
      };
      const headers = new Headers(delivery.headers);
      headers.set('content-length', String(delivery.body.byteLength));
      // A Fetch arrayBuffer(): the bytes as a buffer, not a view.
      const whole = exchange({
        headers,
        readBody: () => Promise.resolve(delivery.body.slice().buffer),
      });
      const accepted = await pipelineOf(setup().receiver, {}, undefined, telling).handle(whole);
      checkEqual(accepted?.answer.status, 200, 'read whole: accepted');
      checkEqual(spent.length, 1, 'spent is told of the bytes');
      const short = new Headers(headers);
      short.set('content-length', String(delivery.body.byteLength + 1));
      const cut = exchange({
        headers: short,
        readBody: () => Promise.resolve(delivery.body),
      });
      const refused = await pipelineOf(setup().receiver, {}, undefined, telling).handle(cut);
      checkEqual(refused?.answer.status, 400, 'shorter than declared');
      checkEqual(errorCode(refused), 'body_unreadable', 'code');
      checkEqual(refused?.close, true, 'the rest is left on the connection');
      checkEqual(spent.length, 1, 'spent is not told of a body not read whole');
      // Hono's reader resolves a read it decided itself: its bytes are spent all the same.
      const decided = exchange({
        headers,
        readBody: () => Promise.resolve({ kind: 'bytes' as const, bytes: delivery.body }),
      });
      const read = await pipelineOf(setup().receiver, {}, undefined, telling).handle(decided);
      checkEqual(read?.answer.status, 200, 'a read the reader decided: accepted');
      checkEqual(spent.length, 2, 'spent is told of the bytes of a read the reader decided');
    },
  },
  {
    name: "pipeline: a reader's rejection is read by raw-body's error type",
    async run() {
      const rejecting = (type: string) =>
        exchange({ readBody: () => Promise.reject(Object.assign(new Error(type), { type })) });
      const tooLarge = await pipeline().handle(rejecting('entity.too.large'));
      checkEqual(tooLarge?.answer.status, 413, 'entity.too.large');
      const mismatch = await pipeline().handle(rejecting('request.size.invalid'));
      check(mismatch?.answer.body.includes('Content-Length'), 'request.size.invalid says why');
      const aborted = await pipeline().handle(rejecting('request.aborted'));
      check(aborted?.answer.body.includes('aborted'), 'request.aborted says why');
    },
  },
  {
    name: 'pipeline: a read decided at once arms no deadline',
    async run() {
      const clock = manualTimers();
      const hint = 'Mount the webhook before the parser.';
      const taken = exchange({ readBody: () => ({ kind: 'unavailable', hint }) });
      const outcome = await pipeline({}, clock.timers).handle(taken);
      checkEqual(errorCode(outcome), 'raw_body_unavailable', 'code');
      checkEqual(clock.pending.size, 0, 'no deadline');
    },
  },
  {
    name: 'pipeline: other paths pass on unread; a path that throws counts as another path',
    async run() {
      const other = exchange({ path: () => '/other' });
      checkEqual(await pipeline().handle(other), undefined, 'nothing answered');
      checkEqual(other.passedOn, true, 'other path');
      checkEqual(other.reads, 0, 'not read');
      const unparsable = exchange({
        path: () => {
          throw new URIError('bad request line');
        },
      });
      await pipeline().handle(unparsable);
      checkEqual(unparsable.passedOn, true, 'unparsable');
      const routed = exchange({ path: () => '/other', routed: true });
      checkEqual(
        (await pipeline().handle(routed))?.answer.status,
        401,
        'routed: handled (unsigned)',
      );
    },
  },
  {
    name: 'pipeline: other methods get 405 without their body being read',
    async run() {
      const ex = exchange({ method: 'GET' });
      const outcome = await pipeline().handle(ex);
      checkEqual(outcome?.answer.status, 405, 'status');
      checkEqual(ex.reads, 0, 'not read');
    },
  },
  {
    name: 'pipeline: passThrough keeps the event and passes on; without it the event is kept and answered',
    async run() {
      const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
      const passing = exchange({ body: delivery.body, headers: new Headers(delivery.headers) });
      const passed = await pipeline({ passThrough: true }).handle(passing);
      checkEqual(passed, undefined, 'not answered');
      checkEqual(passing.passedOn, true, 'passed on');
      checkEqual(passing.kept.length, 1, 'kept');
      const answering = exchange({ body: delivery.body, headers: new Headers(delivery.headers) });
      const answered = await pipeline().handle(answering);
      checkEqual(answered?.answer.status, 200, 'answered');
      checkEqual(answering.passedOn, false, 'not passed on');
      checkEqual(answering.kept.length, 1, 'kept for response listeners');
    },
  },
  {
    name: 'pipeline: an error while answering goes to fail() when the adapter has one',
    async run() {
      const failures: unknown[] = [];
      const boom = new Error('headers already sent');
      const respond = () => {
        throw boom;
      };
      const failing = { ...platform, fail: (error: unknown) => failures.push(error) };
      await pipelineOf(setup().receiver, {}, undefined, failing).handle(exchange({ respond }));
      checkEqual(failures[0], boom, 'handed to fail');
      await checkRejects(
        () => pipeline().handle(exchange({ respond })),
        (error) => error === boom,
        'rejects without fail',
      );
    },
  },
  {
    name: 'pipeline: a path without a leading slash or a bodyTimeoutMs that is not positive is refused at setup',
    async run() {
      await checkRejects(
        () => pipeline({ path: 'webhooks' }),
        (error) => (error as { code?: unknown }).code === 'configuration_error',
        'path',
      );
      await checkRejects(
        () => pipeline({ bodyTimeoutMs: 0 }),
        (error) => String((error as Error).message).includes('bodyTimeoutMs'),
        'bodyTimeoutMs',
      );
    },
  },
  {
    name: 'readLimited: aborting the signal cancels the stream and reports the read as failed',
    async run() {
      let cancelled = false;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new Uint8Array(4));
        },
        cancel() {
          cancelled = true;
        },
      });
      const controller = new AbortController();
      const reading = readLimited(stream, LIMIT, controller.signal);
      controller.abort();
      checkEqual((await reading).kind, 'failed', 'failed');
      checkEqual(cancelled, true, 'cancelled');
    },
  },
];
