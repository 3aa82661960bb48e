import {
  type Attributes,
  type BatchObservableResult,
  context,
  isSpanContextValid,
  type MeterProvider,
  metrics,
  type ObservableResult,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import {
  ACCOUNT_ATTRIBUTE,
  type ReceiverSpanAttributes,
  type ReceiverSpanName,
  type ReceiverTelemetry,
  type TelemetrySource,
} from '../operations/telemetry/receiver-telemetry.js';
import type { TrackedState } from '../store/store.js';

/** Options of {@link openTelemetry}. */
export interface OpenTelemetryOptions {
  /** Where instruments are created. Default: the global one (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
  /** Where spans are started. Default: the global one (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /**
   * On a Receiver of several accounts (`accounts`): add `faceverify.account` to the spans and
   * the metric points of one account's work, where the account is known (webhook answers,
   * polls, deliveries, handler runs, rate-limit waits). Off by default: every account
   * multiplies the time series of each metric, which a backend billed or limited by series
   * may not want for many accounts. Only accounts the Receiver has are recorded, never an id
   * a request made up. A Receiver of one account records none either way.
   *
   * @example
   * createReceiver({ accounts, tokenKeys, telemetry: openTelemetry({ accountAttribute: true }) });
   */
  accountAttribute?: boolean;
}

// The scope every instrument and span is reported under.
const SCOPE = '@faceverify/core';
const MS_PER_S = 1000;
// Handlers and polls take milliseconds to seconds; a result reaches its handler seconds to
// hours after its session started (the polling fallback, retries with backoff).
const FAST_BOUNDARIES_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const SLOW_BOUNDARIES_S = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14_400, 86_400];
const STATES: readonly TrackedState[] = ['pending', 'delivering', 'completed', 'expired', 'failed'];

/** The attribute set of one value, built once, so that recording allocates nothing. */
function attributesBy<Value extends string>(
  key: string,
  values: readonly Value[],
): Record<Value, Attributes> {
  const sets: Partial<Record<Value, Attributes>> = {};
  for (const value of values) sets[value] = { [key]: value };
  return sets as Record<Value, Attributes>;
}

const BY_SOURCE = attributesBy('faceverify.delivery.source', ['webhook', 'poll', 'confirm']);
const BY_POLL_OUTCOME = attributesBy('faceverify.poll.outcome', [
  'completed',
  'pending',
  'expired',
  'not_found',
  'rate_limited',
  'failed',
]);
const BY_RATE_LIMIT_ACTION = attributesBy('faceverify.rate_limit.action', [
  'retried',
  'rescheduled',
]);
const BY_UNDELIVERABLE_REASON = attributesBy('faceverify.undeliverable.reason', [
  'attempts_exhausted',
  'displaced',
]);
const BY_HANDLER_OUTCOME = attributesBy('faceverify.handler.outcome', ['success', 'failure']);
const BY_STATE = attributesBy('faceverify.record.state', STATES);
/**
 * `base` with the account added, each set built once per account and kept: the accounts a
 * Receiver has are few next to the points recorded, and recording then allocates nothing.
 */
function accountSets(): (base: Attributes, account: string) => Attributes {
  const byBase = new WeakMap<Attributes, Map<string, Attributes>>();
  return (base, account) => {
    let byAccount = byBase.get(base);
    if (!byAccount) {
      byAccount = new Map();
      byBase.set(base, byAccount);
    }
    let attributes = byAccount.get(account);
    if (!attributes) {
      attributes = Object.assign({}, base, { [ACCOUNT_ATTRIBUTE]: account });
      byAccount.set(account, attributes);
    }
    return attributes;
  };
}

/** A span's attributes without the account, for a telemetry that does not record it. */
function withoutAccount(attributes: ReceiverSpanAttributes): ReceiverSpanAttributes {
  if (!(ACCOUNT_ATTRIBUTE in attributes)) return attributes;
  const { [ACCOUNT_ATTRIBUTE]: _account, ...rest } = attributes;
  return rest;
}

const NO_ATTRIBUTES: Attributes = {};

const SPAN_NAMES: Record<ReceiverSpanName, string> = {
  receive: 'faceverify.receive',
  poll: 'faceverify.poll',
  sweep: 'faceverify.sweep',
  confirm: 'faceverify.confirm',
};

/**
 * Receiver telemetry on `@opentelemetry/api`: the counters, histograms, gauges and spans
 * listed in docs/operations.md. Pass it as `telemetry` to one `createReceiver()`. Without an
 * OpenTelemetry SDK registered, the API's no-op instruments make it cost next to nothing.
 *
 * The user's `verification.completed` handlers run inside the `faceverify.receive` (or
 * `faceverify.poll`) span, so their own spans nest under it once a context manager is
 * registered (the Node SDK registers one).
 *
 * @example
 * import { createReceiver } from '@faceverify/core';
 * import { openTelemetry } from '@faceverify/core/opentelemetry';
 *
 * // After the OpenTelemetry SDK is started (e.g. `new NodeSDK({...}).start()`):
 * const receiver = createReceiver({ telemetry: openTelemetry() });
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): ReceiverTelemetry {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
  const byAccount = options.accountAttribute === true;
  const addAccount = accountSets();
  /** The attribute set of a point: `base`, and the account when it is recorded and known. */
  const of = (base: Attributes, account: string | undefined): Attributes =>
    byAccount && account !== undefined ? addAccount(base, account) : base;
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
  const webhooks = meter.createCounter('faceverify.webhooks', {
    description: 'Webhook requests answered, by status code and answer.',
    unit: '{webhook}',
  });
  const deliveries = meter.createCounter('faceverify.deliveries', {
    description: 'Results delivered to the verification.completed handlers, by source.',
    unit: '{delivery}',
  });
  const deliveryDelay = meter.createHistogram('faceverify.delivery.delay', {
    description: "Time from a session's start (or an unmatched webhook's arrival) to its delivery.",
    unit: 's',
    advice: { explicitBucketBoundaries: SLOW_BOUNDARIES_S },
  });
  const handlerFailures = meter.createCounter('faceverify.handler.failures', {
    description: 'Runs of the verification.completed handlers that threw.',
    unit: '{failure}',
  });
  const handlerDuration = meter.createHistogram('faceverify.handler.duration', {
    description: 'Time the verification.completed handlers took, with the record of success.',
    unit: 's',
    advice: { explicitBucketBoundaries: FAST_BOUNDARIES_S },
  });
  const undeliverable = meter.createCounter('faceverify.undeliverable', {
    description: 'Results given up (verification.undeliverable), by reason.',
    unit: '{result}',
  });
  const superseded = meter.createCounter('faceverify.results.superseded', {
    description:
      'Results not handed to the handlers because their user had started a newer session (supersededResults: skip), by source.',
    unit: '{result}',
  });
  const polls = meter.createCounter('faceverify.polls', {
    description: 'GET /v1/sessions/:token requests, by outcome.',
    unit: '{poll}',
  });
  const pollDuration = meter.createHistogram('faceverify.poll.duration', {
    description: 'Time of one GET /v1/sessions/:token, with its retries and waits.',
    unit: 's',
    advice: { explicitBucketBoundaries: FAST_BOUNDARIES_S },
  });
  const rateLimitWaits = meter.createCounter('faceverify.rate_limit.waits', {
    description: 'Waits after a 429 from the service, by what followed.',
    unit: '{wait}',
  });
  const records = meter.createObservableGauge('faceverify.store.records', {
    description: "The store's records by state, read at each collection.",
    unit: '{record}',
  });
  const backlog = meter.createObservableGauge('faceverify.store.backlog', {
    description: 'Open records due now and not yet taken by a sweep, read at each collection.',
    unit: '{record}',
  });
  const oldestDueAge = meter.createObservableGauge('faceverify.store.oldest_due_age', {
    description: 'How long the earliest due record has waited for a sweep (0 when none).',
    unit: 's',
  });

  // A webhook's attributes take a few values only: each set is built once.
  const byAnswer = new Map<number, Map<string, Attributes>>();
  const answerAttributes = (status: number, answer: string): Attributes => {
    let ofStatus = byAnswer.get(status);
    if (!ofStatus) {
      ofStatus = new Map();
      byAnswer.set(status, ofStatus);
    }
    let attributes = ofStatus.get(answer);
    if (!attributes) {
      attributes = { 'http.response.status_code': status, 'faceverify.webhook.answer': answer };
      ofStatus.set(answer, attributes);
    }
    return attributes;
  };

  return {
    attach(source: TelemetrySource) {
      records.addCallback(async (result: ObservableResult) => {
        let counts: Record<TrackedState, number>;
        try {
          counts = await source.readCounts();
        } catch {
          // An unreachable store has no counts; health() and the alarms report it.
          return;
        }
        for (const state of STATES) result.observe(counts[state], BY_STATE[state]);
      });
      // Both gauges come from one store read per collection.
      meter.addBatchObservableCallback(
        async (result: BatchObservableResult) => {
          let read: Awaited<ReturnType<TelemetrySource['readBacklog']>>;
          try {
            read = await source.readBacklog();
          } catch {
            return;
          }
          result.observe(backlog, read.due);
          result.observe(oldestDueAge, (read.oldestDueAgeMs ?? 0) / MS_PER_S);
        },
        [backlog, oldestDueAge],
      );
    },
    span(name, work, describe) {
      const parent = context.active();
      const span = tracer.startSpan(SPAN_NAMES[name], undefined, parent);
      // No SDK (or none for traces): a span that neither records nor carries a trace has
      // nothing to give the work it would wrap, so the work runs as it is.
      if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return work();
      return context.with(trace.setSpan(parent, span), async () => {
        try {
          const result = await work();
          if (span.isRecording()) {
            const described = describe(result);
            const attributes = byAccount ? described : withoutAccount(described);
            span.setAttributes(attributes);
            const status = attributes['http.response.status_code'];
            if (typeof status === 'number' && status >= 500) {
              span.setStatus({ code: SpanStatusCode.ERROR });
            }
          }
          return result;
        } catch (error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    webhookAnswered(status, answer, account) {
      webhooks.add(1, of(answerAttributes(status, answer), account));
    },
    delivered(source, sinceStartMs, account) {
      const attributes = of(BY_SOURCE[source], account);
      deliveries.add(1, attributes);
      deliveryDelay.record(sinceStartMs / MS_PER_S, attributes);
    },
    handlerRan(durationMs, failed, account) {
      if (failed) handlerFailures.add(1, of(NO_ATTRIBUTES, account));
      handlerDuration.record(
        durationMs / MS_PER_S,
        of(BY_HANDLER_OUTCOME[failed ? 'failure' : 'success'], account),
      );
    },
    undeliverable(reason, account) {
      undeliverable.add(1, of(BY_UNDELIVERABLE_REASON[reason], account));
    },
    superseded(source, account) {
      superseded.add(1, of(BY_SOURCE[source], account));
    },
    polled(outcome, latencyMs, account) {
      const attributes = of(BY_POLL_OUTCOME[outcome], account);
      polls.add(1, attributes);
      pollDuration.record(latencyMs / MS_PER_S, attributes);
    },
    rateLimitWaited(action, account) {
      rateLimitWaits.add(1, of(BY_RATE_LIMIT_ACTION[action], account));
    },
  };
}
