import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver, MemoryStore, type Receiver, type ReceiverOptions } from '@faceverify/core';
import { openTelemetry } from '@faceverify/core/opentelemetry';
import { createTestClock, type TestClock } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { verificationWebhook } from '@faceverify/express';
import { waitFor } from '@faceverify/test-support';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReceiverServer } from './support/receiver-server.js';

// Issue #20: the Receiver's metrics and traces through @opentelemetry/api, read back with the
// real SDK (a metric reader, an in-memory span exporter) after real traffic: the emulator
// sends its webhooks over HTTP to Express, and the Receiver polls it.

/** A reader collected on demand, as a Prometheus scrape would. */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const POLL_AFTER_MS = 60_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
// Handlers' own spans nest under the Receiver's only with a context manager, which the
// Node SDK registers; the test registers the same one.
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

async function setUp(
  options: Partial<ReceiverOptions> = {},
  clientOptions: { maxRetries?: number } = {},
) {
  const clock: TestClock = createTestClock(Date.now());
  const emulator: Emulator = await startEmulator({ seed: 'telemetry' });
  cleanups.push(() => emulator.close());
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(spans)],
  });
  cleanups.push(() => meterProvider.shutdown());
  const receiver: Receiver = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url, ...clientOptions },
    store: new MemoryStore(),
    clock,
    pollScheduleMs: [POLL_AFTER_MS],
    logger: false,
    telemetry: openTelemetry({ meterProvider, tracerProvider }),
    ...options,
  });
  cleanups.push(() => receiver.stop());
  const app = await startReceiverServer(receiver);
  cleanups.push(() => app.close());

  /** The value of `name` at the point whose attributes include `attributes`. */
  async function collect() {
    const { resourceMetrics, errors } = await reader.collect();
    expect(errors).toEqual([]);
    const points = new Map<string, DataPoint<unknown>[]>();
    for (const scope of resourceMetrics.scopeMetrics) {
      expect(scope.scope.name).toBe('@faceverify/core');
      for (const metric of scope.metrics) {
        points.set(metric.descriptor.name, metric.dataPoints as DataPoint<unknown>[]);
      }
    }
    return (name: string, attributes: Record<string, unknown> = {}) => {
      const matching = (points.get(name) ?? []).filter((point) =>
        Object.entries(attributes).every(([key, value]) => point.attributes[key] === value),
      );
      return matching.length === 1 ? matching[0]!.value : matching.map((point) => point.value);
    };
  }

  const spansNamed = (name: string): ReadableSpan[] =>
    spans.getFinishedSpans().filter((span) => span.name === name);

  /** The spans `span` is nested in, innermost first. */
  const ancestorsOf = (span: ReadableSpan): ReadableSpan[] => {
    const byId = new Map(spans.getFinishedSpans().map((each) => [each.spanContext().spanId, each]));
    const chain: ReadableSpan[] = [];
    for (let parent = byId.get(span.parentSpanContext?.spanId ?? ''); parent; ) {
      chain.push(parent);
      parent = byId.get(parent.parentSpanContext?.spanId ?? '');
    }
    return chain;
  };

  return { clock, emulator, receiver, app, tracerProvider, collect, spansNamed, ancestorsOf };
}

describe('OpenTelemetry metrics and traces', () => {
  it('a webhook delivered: its answer, delivery, handler time, records, and the handler span inside the receive span', async () => {
    const setup = await setUp();
    const { clock, emulator, receiver, app } = setup;
    emulator.setCallbackUrl(app.webhookUrl);
    const appTracer = setup.tracerProvider.getTracer('the-app');
    receiver.on('verification.completed', async () => {
      await appTracer.startActiveSpan('app.grant-access', async (span) => {
        await clock.advance(250);
        span.end();
      });
    });
    const { token } = await receiver.startVerification({ externalUserId: 'alice' });
    await clock.advance(10_000);
    await emulator.completeSession(token, 'verified');
    await emulator.webhooksSettled();
    // A forged webhook is answered 401 and counted as such.
    const forged = await fetch(app.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': 'sha256=00' },
      body: '{}',
    });
    expect(forged.status).toBe(401);
    // A body too large is refused by the adapter before the Receiver sees it, and counted.
    const oversized = await fetch(app.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': 'sha256=00' },
      body: 'x'.repeat(receiver.maxBodyBytes + 1),
    });
    expect(oversized.status).toBe(413);

    const value = await setup.collect();
    expect(
      value('faceverify.webhooks', {
        'http.response.status_code': 200,
        'faceverify.webhook.answer': 'delivered',
      }),
    ).toBe(1);
    expect(
      value('faceverify.webhooks', {
        'http.response.status_code': 401,
        'faceverify.webhook.answer': 'signature_invalid',
      }),
    ).toBe(1);
    expect(
      value('faceverify.webhooks', {
        'http.response.status_code': 413,
        'faceverify.webhook.answer': 'payload_too_large',
      }),
    ).toBe(1);
    expect(value('faceverify.deliveries', { 'faceverify.delivery.source': 'webhook' })).toBe(1);
    // 10 s from the session's start to its completion, then 0.25 s in the handler.
    expect(
      value('faceverify.delivery.delay', { 'faceverify.delivery.source': 'webhook' }),
    ).toMatchObject({
      count: 1,
      sum: 10.25,
    } satisfies Partial<Histogram>);
    expect(
      value('faceverify.handler.duration', { 'faceverify.handler.outcome': 'success' }),
    ).toMatchObject({ count: 1, sum: 0.25 });
    expect(value('faceverify.handler.failures')).toEqual([]);
    expect(value('faceverify.store.records', { 'faceverify.record.state': 'completed' })).toBe(1);
    expect(value('faceverify.store.records', { 'faceverify.record.state': 'pending' })).toBe(0);

    const receives = setup.spansNamed('faceverify.receive');
    const delivered = receives.find(
      (span) => span.attributes['faceverify.webhook.answer'] === 'delivered',
    );
    expect(delivered?.attributes['http.response.status_code']).toBe(200);
    // The webhook named no session, so the service confirmed it first: the handler ran in
    // that poll's span, itself inside the receive span.
    const [handlerSpan] = setup.spansNamed('app.grant-access');
    expect(setup.ancestorsOf(handlerSpan!).map((span) => span.name)).toEqual([
      'faceverify.poll',
      'faceverify.receive',
    ]);
    expect(setup.ancestorsOf(handlerSpan!)[1]).toBe(delivered);
    const refused = receives.find((span) => span !== delivered);
    expect(refused?.attributes).toMatchObject({
      'http.response.status_code': 401,
      'faceverify.webhook.answer': 'signature_invalid',
    });
  });

  it('with includePersonalData, the confirm and poll spans say the session status', async () => {
    const setup = await setUp({ includePersonalData: true });
    const { emulator, receiver } = setup;
    emulator.setCallbackUrl(null);
    receiver.on('verification.completed', () => undefined);
    const { token } = await receiver.startVerification({ externalUserId: 'dana' });
    await emulator.completeSession(token, 'verified');
    expect(await receiver.confirm(token)).toMatchObject({ status: 'verified' });
    const [confirmSpan] = setup.spansNamed('faceverify.confirm');
    expect(confirmSpan?.attributes['faceverify.session.status']).toBe('verified');
    const [pollSpan] = setup.spansNamed('faceverify.poll');
    expect(pollSpan?.attributes['faceverify.session.status']).toBe('verified');
  });

  it('polling: outcomes, a 429 rescheduled, a failing handler, an undeliverable result, confirm() and their spans', async () => {
    // maxRetries 0: a 429 is not waited out inside the call, the session is rescheduled.
    const setup = await setUp({ maxDeliveryAttempts: 1 }, { maxRetries: 0 });
    const { clock, emulator, receiver } = setup;
    // No webhook reaches the receiver: every result comes by polling or confirm().
    emulator.setCallbackUrl(null);
    receiver.on('verification.completed', (event) => {
      if (event.data.external_user_id === 'bob') throw new Error('the users table is locked');
    });
    const bob = await receiver.startVerification({ externalUserId: 'bob' });
    await clock.advance(5000);
    const alice = await receiver.startVerification({ externalUserId: 'alice' });
    const carol = await receiver.startVerification({ externalUserId: 'carol' });
    for (const { token } of [bob, alice, carol]) await emulator.completeSession(token, 'verified');
    await emulator.webhooksSettled();
    expect(await receiver.confirm(carol.token)).toMatchObject({ status: 'verified' });

    // bob's result reaches a failing handler; alice's poll then meets a 429 and is rescheduled.
    await clock.advance(POLL_AFTER_MS - 5000);
    expect(await receiver.sweep()).toMatchObject({ leased: 1, failed: 1 });
    emulator.setFaults({ poll429: { next: 1, retryAfterMs: 1000 } });
    await clock.advance(5000);
    expect(await receiver.sweep()).toMatchObject({ leased: 1, retryLater: 1 });
    await clock.advance(1000);
    expect(await receiver.sweep()).toMatchObject({ leased: 1, delivered: 1 });

    const value = await setup.collect();
    expect(value('faceverify.polls', { 'faceverify.poll.outcome': 'completed' })).toBe(3);
    expect(value('faceverify.polls', { 'faceverify.poll.outcome': 'rate_limited' })).toBe(1);
    expect(
      value('faceverify.poll.duration', { 'faceverify.poll.outcome': 'completed' }),
    ).toMatchObject({
      count: 3,
    });
    expect(
      value('faceverify.rate_limit.waits', { 'faceverify.rate_limit.action': 'rescheduled' }),
    ).toBe(1);
    expect(value('faceverify.deliveries', { 'faceverify.delivery.source': 'confirm' })).toBe(1);
    expect(value('faceverify.deliveries', { 'faceverify.delivery.source': 'poll' })).toBe(1);
    // alice: started, a minute of waiting, then a second for the 429.
    expect(
      value('faceverify.delivery.delay', { 'faceverify.delivery.source': 'poll' }),
    ).toMatchObject({
      count: 1,
      sum: 61,
    });
    expect(value('faceverify.handler.failures')).toBe(1);
    expect(
      value('faceverify.handler.duration', { 'faceverify.handler.outcome': 'failure' }),
    ).toMatchObject({ count: 1 });
    expect(
      value('faceverify.undeliverable', {
        'faceverify.undeliverable.reason': 'attempts_exhausted',
      }),
    ).toBe(1);
    expect(value('faceverify.store.records', { 'faceverify.record.state': 'completed' })).toBe(2);
    expect(value('faceverify.store.records', { 'faceverify.record.state': 'failed' })).toBe(1);

    // A result is personal data: no span says what it was unless the app opts in (below).
    const [confirmSpan] = setup.spansNamed('faceverify.confirm');
    expect(confirmSpan).toBeDefined();
    const spans = [
      ...setup.spansNamed('faceverify.confirm'),
      ...setup.spansNamed('faceverify.poll'),
    ];
    expect(spans.filter((span) => 'faceverify.session.status' in span.attributes)).toEqual([]);
    const polls = setup.spansNamed('faceverify.poll');
    const confirmPoll = polls.find(
      (span) => span.parentSpanContext?.spanId === confirmSpan?.spanContext().spanId,
    );
    expect(confirmPoll?.attributes['faceverify.poll.result']).toBe('delivered');
    const sweeps = setup.spansNamed('faceverify.sweep');
    expect(sweeps.map((span) => span.attributes['faceverify.sweep.leased'])).toEqual([1, 1, 1]);
    const underSweeps = polls.filter((span) =>
      sweeps.some((sweep) => sweep.spanContext().spanId === span.parentSpanContext?.spanId),
    );
    expect(underSweeps.map((span) => span.attributes['faceverify.poll.result']).sort()).toEqual([
      'delivered',
      'failed',
      'retry-later',
    ]);
  });

  it('the backlog gauges: records due and not yet swept, and how long the oldest has waited', async () => {
    const setup = await setUp();
    const { clock, emulator, receiver } = setup;
    emulator.setCallbackUrl(null);
    receiver.on('verification.completed', () => undefined);
    await receiver.startVerification({ externalUserId: 'dora' });
    await clock.advance(10_000);
    await receiver.startVerification({ externalUserId: 'erin' });
    const idle = await setup.collect();
    expect(idle('faceverify.store.backlog')).toBe(0);
    expect(idle('faceverify.store.oldest_due_age')).toBe(0);

    // dora's first poll has been due for 30 s, erin's for 20 s; no sweep has run.
    await clock.advance(POLL_AFTER_MS + 20_000);
    const waiting = await setup.collect();
    expect(waiting('faceverify.store.backlog')).toBe(2);
    expect(waiting('faceverify.store.oldest_due_age')).toBe(30);
    expect((await receiver.health()).store.backlog).toEqual({ due: 2, oldestDueAgeMs: 30_000 });

    expect(await receiver.sweep()).toMatchObject({ leased: 2, pending: 2 });
    const swept = await setup.collect();
    expect(swept('faceverify.store.backlog')).toBe(0);
    expect(swept('faceverify.store.oldest_due_age')).toBe(0);
  });

  it('a 429 waited out inside the poll counts as retried', async () => {
    const setup = await setUp();
    const { clock, emulator, receiver } = setup;
    emulator.setCallbackUrl(null);
    receiver.on('verification.completed', () => undefined);
    const { token } = await receiver.startVerification({ externalUserId: 'dave' });
    await emulator.completeSession(token, 'verified');
    emulator.setFaults({ poll429: { next: 1, retryAfterMs: 1000 } });
    await clock.advance(POLL_AFTER_MS);
    const sweeping = receiver.sweep();
    // The poll holds on the Receiver's clock until the service's wait is over.
    await waitFor(
      async () =>
        (await setup.collect())('faceverify.rate_limit.waits', {
          'faceverify.rate_limit.action': 'retried',
        }) === 1,
      'the 429 to be waited out',
    );
    await clock.advance(2000);
    expect(await sweeping).toMatchObject({ delivered: 1 });
    const value = await setup.collect();
    expect(value('faceverify.polls', { 'faceverify.poll.outcome': 'completed' })).toBe(1);
    expect(value('faceverify.polls', { 'faceverify.poll.outcome': 'rate_limited' })).toEqual([]);
  });
});

describe('OpenTelemetry on a Receiver of several accounts', () => {
  const TOKEN_KEY = 'telemetry-accounts-token-key-0123456789abcdef';

  /**
   * Two accounts on the emulator and one Receiver for both, each account's webhooks on its own
   * path; acme's webhook arrives, globex's is recovered by polling.
   */
  async function runTwoAccounts(accountAttribute: boolean | undefined) {
    const clock: TestClock = createTestClock(Date.now());
    const emulator = await startEmulator({
      seed: 'telemetry-accounts',
      accounts: [{ id: 'acme' }, { id: 'globex' }],
    });
    cleanups.push(() => emulator.close());
    const reader = new OnDemandReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const spans = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(spans)],
    });
    cleanups.push(() => meterProvider.shutdown());
    const account = (id: 'acme' | 'globex') => ({
      secret: emulator.account(id).signingSecret,
      client: { apiKey: emulator.account(id).apiKey, baseUrl: emulator.url },
    });
    const receiver = createReceiver({
      accounts: { acme: account('acme'), globex: account('globex') },
      tokenKeys: [TOKEN_KEY],
      store: new MemoryStore(),
      clock,
      pollScheduleMs: [POLL_AFTER_MS],
      logger: false,
      telemetry: openTelemetry({
        meterProvider,
        tracerProvider,
        ...(accountAttribute === undefined ? {} : { accountAttribute }),
      }),
    });
    receiver.on('verification.completed', () => undefined);
    cleanups.push(() => receiver.stop());
    const app = express();
    app.post('/webhooks/verification/:account', verificationWebhook(receiver));
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    emulator.account('acme').setCallbackUrl(`${url}/webhooks/verification/acme`);

    const acme = await receiver.startVerification({ externalUserId: 'alice', account: 'acme' });
    const globex = await receiver.startVerification({ externalUserId: 'alice', account: 'globex' });
    await emulator.completeSession(acme.token, 'verified');
    await emulator.completeSession(globex.token, 'verified');
    await emulator.webhooksSettled();
    // Made-up account ids: answered 404 before anything is verified, and counted without one.
    for (const id of ['made-up-1', 'made-up-2']) {
      const refused = await fetch(`${url}/webhooks/verification/${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-signature': '00' },
        body: '{}',
      });
      expect(refused.status).toBe(404);
    }
    await clock.advance(POLL_AFTER_MS);
    expect(await receiver.sweep()).toMatchObject({ leased: 1, delivered: 1 });

    const { resourceMetrics, errors } = await reader.collect();
    expect(errors).toEqual([]);
    const points = resourceMetrics.scopeMetrics.flatMap((scope) =>
      scope.metrics.flatMap((metric) =>
        (metric.dataPoints as DataPoint<unknown>[]).map((point) => ({
          name: metric.descriptor.name,
          attributes: point.attributes,
          value: point.value,
        })),
      ),
    );
    return { points, spans: spans.getFinishedSpans() };
  }

  it('accountAttribute: true adds faceverify.account to the points and spans of one known account', async () => {
    const { points, spans } = await runTwoAccounts(true);
    const pointOf = (name: string, attributes: Record<string, unknown>) =>
      points.filter(
        (point) =>
          point.name === name &&
          Object.entries(attributes).every(([key, value]) => point.attributes[key] === value),
      );
    expect(
      pointOf('faceverify.webhooks', {
        'faceverify.webhook.answer': 'delivered',
        'faceverify.account': 'acme',
      }).map((point) => point.value),
    ).toEqual([1]);
    const deliveries = pointOf('faceverify.deliveries', {});
    expect(
      deliveries
        .map((point) => [
          point.attributes['faceverify.delivery.source'],
          point.attributes['faceverify.account'],
          point.value,
        ])
        .sort(),
    ).toEqual([
      ['poll', 'globex', 1],
      ['webhook', 'acme', 1],
    ]);
    // acme's webhook was confirmed with acme's key; globex's session polled with globex's.
    expect(
      pointOf('faceverify.polls', { 'faceverify.poll.outcome': 'completed' })
        .map((point) => [point.attributes['faceverify.account'], point.value])
        .sort(),
    ).toEqual([
      ['acme', 1],
      ['globex', 1],
    ]);
    expect(pointOf('faceverify.handler.duration', { 'faceverify.account': 'globex' })).toHaveLength(
      1,
    );
    // A made-up id never becomes an attribute value: the 404s are counted without an account.
    const unknown = pointOf('faceverify.webhooks', {
      'faceverify.webhook.answer': 'account_unknown',
    });
    expect(unknown.map((point) => [point.attributes['faceverify.account'], point.value])).toEqual([
      [undefined, 2],
    ]);
    const accountValues = new Set(points.map((point) => point.attributes['faceverify.account']));
    expect([...accountValues].sort()).toEqual(['acme', 'globex', undefined]);

    const receives = spans.filter((span) => span.name === 'faceverify.receive');
    expect(
      receives
        .map((span) => [
          span.attributes['faceverify.webhook.answer'],
          span.attributes['faceverify.account'],
        ])
        .sort(),
    ).toEqual([
      ['account_unknown', undefined],
      ['account_unknown', undefined],
      ['delivered', 'acme'],
    ]);
    const polls = spans.filter((span) => span.name === 'faceverify.poll');
    expect(polls.map((span) => span.attributes['faceverify.account']).sort()).toEqual([
      'acme',
      'globex',
    ]);
  });

  it('off by default: no point and no span carries the account', async () => {
    const { points, spans } = await runTwoAccounts(undefined);
    expect(points.length).toBeGreaterThan(0);
    expect(points.filter((point) => 'faceverify.account' in point.attributes)).toEqual([]);
    expect(spans.length).toBeGreaterThan(0);
    expect(spans.filter((span) => 'faceverify.account' in span.attributes)).toEqual([]);
    const deliveries = points.filter((point) => point.name === 'faceverify.deliveries');
    expect(deliveries.map((point) => point.value)).toEqual([1, 1]);
  });
});
