#!/usr/bin/env node
// CPU time per accepted webhook of `receiver.receive()` (MemoryStore, no client) beside the
// hand-written receiver that keeps the same promises and what the Receiver keeps at rest
// (`keptPromises` with `atRest`, bench/lib/hand-written.mjs: keyed hashes of the user id and
// record key, the result sealed with AES-256-GCM), in one process, with no network, framework
// or load generator: the library's own work against the same work written plainly. Issue 45's
// goal for the rows "at rest too" of bench/http.bench.mjs (at least 0.9) is judged over HTTP;
// this is the same comparison without what HTTP adds to both sides, steadier on a busy machine
// because the two sides alternate batch by batch in one process.
//
// A third side is the same Receiver with `tokenKeys` set, a dedicated token key beside the
// signing secret, as a deployment runs once its store's keys are independent of the webhook
// secret: the hand-written receiver's CPU over it is reported beside the goal's ratio.
//
// Every request is a distinct, correctly signed body (bench/lib/webhook-bodies.mjs), made
// before it is timed; every side takes bodies alike, each a fresh sequence.
//
// usage: node bench/at-rest.bench.mjs [--quick] [--rounds=N] [--batch=N]
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { machineInfo, median, packageVersions, table, writeResults } from './harness.mjs';
import { handWrittenReceivers } from './lib/hand-written.mjs';
import { bodyFactory, deliveryHeaders, SECRET } from './lib/webhook-bodies.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// The goal the HTTP benchmark's "at rest too" rows are judged by (bench/lib/http-goals.mjs).
const GOAL = 0.9;

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    batch: { type: 'string' },
  },
  strict: false,
});
const rounds = Number(values.rounds ?? (values.quick ? 6 : 21));
const batch = Number(values.batch ?? (values.quick ? 1000 : 2000));

const { createReceiver, MemoryStore } = await import(
  pathToFileURL(fileURLToPath(new URL('../packages/core/dist/index.js', import.meta.url))).href
);
/** A Receiver as the benchmark's servers make it, and, with `tokenKeys`, as production does. */
function receiverOf(options = {}) {
  const made = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    ...options,
  });
  made.on('verification.completed', () => undefined);
  return made;
}
const receiver = receiverOf();
// A dedicated token key beside the signing secret, as docs/polling-and-stores.md advises: the
// configuration a deployment runs once the store's keys are independent of the webhook secret.
const withTokenKey = receiverOf({ tokenKeys: ['bench-at-rest-token-key-3b9d1f7a2c5e8a4d6f0b'] });
const { keptPromises } = handWrittenReceivers({ atRest: true });

const sides = {
  'hand-written, same promises, at rest': async ({ bytes, headers }) =>
    (await keptPromises(bytes, headers['x-webhook-signature']))[0],
  'receiver.receive()': async ({ body, headers }) =>
    (await receiver.receive({ method: 'POST', headers, body })).status,
  'receiver.receive(), tokenKeys set': async ({ body, headers }) =>
    (await withTokenKey.receive({ method: 'POST', headers, body })).status,
};

/** `count` requests of a sequence of its own (`tag`): each body once, signed. */
function requests(tag, count) {
  const bodyOf = bodyFactory({ tag });
  return Array.from({ length: count }, (_, n) => {
    const bytes = bodyOf(n);
    return { bytes, body: new Uint8Array(bytes), headers: deliveryHeaders(bytes, n, 'valid') };
  });
}

let sequence = 0;
/** CPU µs of this process per accepted webhook of `side`, over `count` fresh requests. */
async function cpuPerWebhook(side, count) {
  const made = requests(`r${sequence++}`, count);
  const cpu = process.cpuUsage();
  for (const request of made) {
    const status = await side(request);
    if (status !== 200) throw new Error(`a valid webhook was answered ${status}`);
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / count;
}

const names = Object.keys(sides);
// Warm-up: the JIT, and every cache of both sides filled past its bound.
for (const name of names) await cpuPerWebhook(sides[name], 6000);
const samples = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  // The order rotates, so each side takes each place as often: drift, and the garbage one
  // side leaves to the next, fall on every side alike.
  const shift = round % names.length;
  for (const name of [...names.slice(shift), ...names.slice(0, shift)]) {
    samples[name].push(await cpuPerWebhook(sides[name], batch));
  }
}

const [baselineName, oursName, tokenKeysName] = names;
const ratiosOf = (name) => samples[baselineName].map((value, i) => value / samples[name][i]);
const ratios = ratiosOf(oursName);
const tokenKeysRatios = ratiosOf(tokenKeysName);
const result = {
  baselineCpuMicros: median(samples[baselineName]),
  oursCpuMicros: median(samples[oursName]),
  ratio: median(ratios),
  ratioRange: [Math.min(...ratios), Math.max(...ratios)],
  goal: GOAL,
  met: median(ratios) >= GOAL,
  withTokenKeys: {
    cpuMicros: median(samples[tokenKeysName]),
    ratio: median(tokenKeysRatios),
    ratioRange: [Math.min(...tokenKeysRatios), Math.max(...tokenKeysRatios)],
  },
};
console.log(
  table(
    ['side', 'CPU µs/webhook'],
    names.map((name) => [name, median(samples[name]).toFixed(1)]),
  ),
);
const rangeText = (range) => range.map((value) => value.toFixed(2)).join('-');
console.log(
  `\nhand-written CPU / ours: ${result.ratio.toFixed(2)} (rounds ${rangeText(result.ratioRange)}); goal >= ${GOAL}: ${result.met ? 'met' : 'NOT met'}`,
);
console.log(
  `with tokenKeys set: ${result.withTokenKeys.ratio.toFixed(2)} (rounds ${rangeText(result.withTokenKeys.ratioRange)})`,
);
const file = writeResults(BENCH_DIR, 'at-rest', {
  machine: machineInfo(ROOT),
  versions: packageVersions(ROOT, ['@faceverify/core']),
  settings: { rounds, batch },
  sides: names,
  result,
});
console.log(`\nwrote ${file.slice(ROOT.length)}`);
