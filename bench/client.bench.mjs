#!/usr/bin/env node
// CPU time of the API client per `getSession()`, in the client's process, against the
// emulator in a process of its own (bench/lib/emulator-process.mjs): the client as created
// with no `fetch` (node:http and node:https on Node), the same client given Node's own `fetch`
// (the default before), and a hand-written GET through node:http that reads and parses the
// same JSON, as the baseline. A sweep polls with exactly this call, so its CPU per poll follows
// this figure (bench/sweeps.bench.mjs).
//
// Each round runs every side once, in an order rotated by one each round, `--calls` calls with
// 4 in flight at once (a sweep's default concurrency), after a warm-up of its own.
//
// usage: node bench/client.bench.mjs [--quick] [--rounds=N] [--calls=N]
import { request } from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { machineInfo, median, packageVersions, table, writeResults } from './harness.mjs';
import { startChild } from './lib/child-process.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IN_FLIGHT = 4;

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    calls: { type: 'string' },
  },
  strict: false,
});
const rounds = Number(values.rounds ?? (values.quick ? 3 : 8));
const calls = Number(values.calls ?? (values.quick ? 1000 : 4000));

const { createClient } = await import(
  pathToFileURL(fileURLToPath(new URL('../packages/core/dist/index.js', import.meta.url))).href
);

const emulator = await startChild(
  fileURLToPath(new URL('./lib/emulator-process.mjs', import.meta.url)),
);
const { url, apiKey } = emulator.ready;
const [token] = (await emulator.ask('sessions', { count: 1 })).tokens;

const handWrittenHeaders = { accept: 'application/json', authorization: `Bearer ${apiKey}` };
/** The baseline: one GET through node:http's global agent, its JSON read and parsed. */
const handWritten = () =>
  new Promise((resolve, reject) => {
    const outgoing = request(
      `${url}/v1/sessions/${token}`,
      { headers: handWrittenHeaders },
      (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve(JSON.parse(text).status));
        res.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });

const clientOf = (options) => createClient({ apiKey, baseUrl: url, ...options });
const ownClient = clientOf({});
// Node's own fetch, called as the global it is.
const fetchClient = clientOf({ fetch: (input, init) => fetch(input, init) });
const sides = {
  'hand-written node:http GET': handWritten,
  'createClient() (node:http)': async () => (await ownClient.getSession(token)).status,
  'createClient({ fetch }) (Node fetch)': async () => (await fetchClient.getSession(token)).status,
};

/** CPU µs of this process per call, `count` calls with IN_FLIGHT in flight. */
async function cpuPerCall(call, count) {
  let started = 0;
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (started++ < count) {
        if ((await call()) !== 'pending') throw new Error('the session is no longer pending');
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / count;
}

const names = Object.keys(sides);
for (const name of names) await cpuPerCall(sides[name], Math.ceil(calls / 2));
const samples = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  const shift = round % names.length;
  for (const name of [...names.slice(shift), ...names.slice(0, shift)]) {
    samples[name].push(await cpuPerCall(sides[name], calls));
  }
}
await emulator.stop();

const [baselineName] = names;
const baseline = samples[baselineName];
const rows = names.map((name) => {
  const ratios = samples[name].map((value, i) => baseline[i] / value);
  return {
    side: name,
    cpuMicrosPerCall: median(samples[name]),
    ratio: median(ratios),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
  };
});
console.log(
  table(
    ['side', 'CPU µs/call', 'baseline CPU / this', 'per-round range'],
    rows.map((row) => [
      row.side,
      row.cpuMicrosPerCall.toFixed(0),
      row.ratio.toFixed(2),
      `${row.ratioRange[0].toFixed(2)}-${row.ratioRange[1].toFixed(2)}`,
    ]),
  ),
);
const file = writeResults(BENCH_DIR, 'client', {
  machine: machineInfo(ROOT),
  versions: packageVersions(ROOT, ['@faceverify/core']),
  settings: { rounds, calls, inFlight: IN_FLIGHT },
  results: rows,
});
console.log(`\nwrote ${file.slice(ROOT.length)}`);
