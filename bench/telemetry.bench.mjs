#!/usr/bin/env node
// What the Receiver's OpenTelemetry instrumentation costs on its hot path: `receiver.receive()`
// of a distinct, correctly signed 2 KiB webhook (verified, parsed, stored, delivered to a
// handler), in process, with
//   - no telemetry (the baseline);
//   - `openTelemetry()` with @opentelemetry/api present and no SDK (its no-op instruments);
//   - `openTelemetry()` on the SDK: a MeterProvider with a reader (aggregating every value, as
//     between two scrapes) and a BasicTracerProvider exporting every span in batches.
// In process rather than over HTTP, where the framework and the load generator would drown the
// difference in noise. What is compared is this process's CPU time per call, in rounds that
// rotate the order of the variants. The built packages are measured: run `pnpm build` first.
//
// usage: node bench/telemetry.bench.mjs [--quick] [--rounds=N] [--sample-ms=N] [--warmup-ms=N]
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  benchOptions,
  machineInfo,
  median,
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
const variants = {
  none: receiving('none'),
  'API present, no SDK': receiving('api', openTelemetry()),
  'SDK (metrics + traces)': receiving('sdk', sdkTelemetry()),
};
const names = Object.keys(variants);
for (const name of names) {
  if (!(await variants[name]())) throw new Error(`${name}: the webhook was not delivered`);
}

/** CPU time (user + system) of this process per call of `fn`, over `calls` calls, in µs. */
async function cpuPerCall(fn, calls) {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

// CPU time of this process rather than wall time: on a shared machine other processes take
// the cores away at random, which wall time counts against whichever variant was running.
const calls = Math.max(200, Math.round(settings.sampleMs * 20));
const warmEnd = performance.now() + settings.warmupMs;
while (performance.now() < warmEnd) for (const name of names) await cpuPerCall(variants[name], 200);
const samples = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < settings.rounds; round++) {
  const shift = round % names.length;
  for (const name of [...names.slice(shift), ...names.slice(0, shift)]) {
    samples[name].push(await cpuPerCall(variants[name], calls));
  }
}
const base = median(samples.none);
const results = names.map((variant) => {
  const cpuUs = median(samples[variant]);
  return {
    variant,
    cpuMicrosPerReceive: Number(cpuUs.toFixed(2)),
    extraMicrosPerReceive: Number((cpuUs - base).toFixed(2)),
    // Throughput on a saturated core, relative to no telemetry.
    ratio: Number((base / cpuUs).toFixed(3)),
    roundRatioRange: [
      Number(Math.min(...samples[variant].map((us, i) => samples.none[i] / us)).toFixed(3)),
      Number(Math.max(...samples[variant].map((us, i) => samples.none[i] / us)).toFixed(3)),
    ],
    samples: samples[variant].map((us) => Number(us.toFixed(2))),
  };
});
console.log(
  `telemetry: receiver.receive() of a signed 2 KiB webhook, CPU time per call, ${settings.rounds} rounds of ${calls} calls`,
);
console.log(
  `\n${table(
    ['telemetry', 'CPU µs/receive', 'extra µs', 'ratio to none', 'rounds'],
    results.map((r) => [
      r.variant,
      r.cpuMicrosPerReceive.toFixed(1),
      r.extraMicrosPerReceive.toFixed(1),
      r.ratio.toFixed(2),
      r.roundRatioRange.map((x) => x.toFixed(2)).join('–'),
    ]),
  )}`,
);
const file = writeResults(BENCH_DIR, 'telemetry', {
  benchmark: 'telemetry',
  description:
    'CPU time per receiver.receive() (built dist) with no telemetry, openTelemetry() without an SDK, and openTelemetry() on the OpenTelemetry SDK; medians of rotated rounds; ratio = CPU(none) / CPU(variant)',
  machine,
  settings: { ...settings, callsPerSample: calls },
  versions: packageVersions(ROOT, [
    '@opentelemetry/api',
    '@opentelemetry/sdk-metrics',
    '@opentelemetry/sdk-trace-base',
  ]),
  results,
});
console.log(`\nwrote ${file}`);
