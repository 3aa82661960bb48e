#!/usr/bin/env node
// What the Receiver's OpenTelemetry instrumentation costs on its hot path: `receiver.receive()`
// of a distinct, correctly signed 2 KiB webhook (verified, parsed, stored, delivered to a
// handler), in process, with
//   - no telemetry (the baseline);
//   - `openTelemetry()` with @opentelemetry/api present and no SDK (its no-op instruments);
//   - `openTelemetry()` on the SDK: a MeterProvider with a reader (aggregating every value, as
//     between two scrapes) and a BasicTracerProvider exporting every span in batches.
// In process rather than over HTTP, where the framework and the load generator would drown the
// difference in noise. The built packages are measured: run `pnpm build` first.
//
// usage: node bench/telemetry.bench.mjs [--quick] [--rounds=N] [--sample-ms=N] [--warmup-ms=N]
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  benchOptions,
  compareMany,
  formatOps,
  machineInfo,
  packageVersions,
  table,
  writeResults,
} from './harness.mjs';
import { bodyFactory, SECRET, signHex } from './lib/webhook-bodies.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const entry = (file) =>
  pathToFileURL(fileURLToPath(new URL(`../packages/core/dist/${file}.js`, import.meta.url))).href;

const { createReceiver, MemoryStore } = await import(entry('index'));
const { openTelemetry } = await import(entry('opentelemetry/index'));

/** Collected only when asked, as a Prometheus exporter is: values aggregate meanwhile. */
class IdleReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

/** Spans leave the process in batches; where they go is not what is measured. */
const discardingExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => {},
};

function sdkTelemetry() {
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(discardingExporter)],
  });
  return openTelemetry({ meterProvider, tracerProvider });
}

/** A `receive()` of the next distinct signed body; resolves true when it was delivered. */
function receiving(tag, telemetry) {
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    // Short windows, so the store's memory stays level over the run instead of growing with
    // every body, differently for the faster and the slower variants.
    replayWindowMs: 1000,
    sessionLifetimeMs: 1000,
    logger: false,
    ...(telemetry ? { telemetry } : {}),
  });
  receiver.on('verification.completed', () => undefined);
  const body = bodyFactory({ tag });
  let n = 0;
  return async () => {
    const bytes = body(n++);
    const answer = await receiver.receive({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signHex(bytes) },
      body: bytes,
    });
    return answer.status === 200;
  };
}

const settings = benchOptions();
const machine = machineInfo(ROOT);
console.log(
  `telemetry: receiver.receive() of a signed 2 KiB webhook, ${settings.rounds} rounds of ${settings.sampleMs} ms`,
);
const many = await compareMany(
  {
    baseline: receiving('none'),
    candidates: {
      'API present, no SDK': receiving('api', openTelemetry()),
      'SDK (metrics + traces)': receiving('sdk', sdkTelemetry()),
    },
  },
  settings,
);
const results = Object.entries(many.candidates).map(([variant, r]) => ({
  variant,
  opsPerSec: Math.round(r.opsPerSec),
  ratio: Number(r.ratio.toFixed(3)),
  roundRatioRange: [
    Number(Math.min(...r.roundRatios).toFixed(3)),
    Number(Math.max(...r.roundRatios).toFixed(3)),
  ],
  samples: r.samples.map(Math.round),
}));
console.log(
  `\n${table(
    ['telemetry', 'receive() ops/s', 'ratio to none', 'rounds'],
    [
      ['none', formatOps(many.baseline), '1.00', ''],
      ...results.map((r) => [
        r.variant,
        formatOps(r.opsPerSec),
        r.ratio.toFixed(2),
        r.roundRatioRange.map((x) => x.toFixed(2)).join('–'),
      ]),
    ],
  )}`,
);
const file = writeResults(BENCH_DIR, 'telemetry', {
  benchmark: 'telemetry',
  description:
    'ops/s of receiver.receive() (built dist) with no telemetry, openTelemetry() without an SDK, and openTelemetry() on the OpenTelemetry SDK; medians of rotated rounds',
  machine,
  settings,
  versions: packageVersions(ROOT, [
    '@opentelemetry/api',
    '@opentelemetry/sdk-metrics',
    '@opentelemetry/sdk-trace-base',
  ]),
  baseline: { opsPerSec: Math.round(many.baseline), samples: many.samples.map(Math.round) },
  results,
});
console.log(`\nwrote ${file}`);
