#!/usr/bin/env node
// Requests per second and p99 latency of each adapter against a hand-written receiver in the
// same framework, over loopback with autocannon: a plain one, one that keeps, written
// plainly, the promises the Receiver keeps in process, and that one keeping besides what the
// Receiver keeps at rest (keyed hashes, the result sealed); then the server's RSS over 100k
// requests, both sides with the same capped young generation (--max-semi-space-size).
//
// Every request carries a distinct, correctly signed ~2 KiB body, so the Receiver verifies,
// parses, stores and hands each one to its handler (none is a cheap replay duplicate), and the
// baseline gets the very same bodies in the same order. Servers run in child processes, so the
// load generator never shares their CPU time or memory.
//
// usage: node bench/http.bench.mjs [--quick] [--rounds=N] [--duration-s=N] [--warmup-s=N]
//                                  [--connections=N] [--rss-requests=N] [--semi-space-mib=N]
//                                  [--rss-settle-s=N]
//                                  [--only=express,koa,hono,fastify,fetch,bun,octokit]
//                                  [--bun=<path of the bun executable>] [--no-reject]
//                                  [--no-promises] [--no-layers] [--no-rss]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineInfo, median, packageVersions, table, writeResults } from './harness.mjs';
import { startServer } from './lib/child-server.mjs';
import { httpGoals, semiSpaceText, verdict } from './lib/http-goals.mjs';
import { load, measure, runtimeOf } from './lib/measure-server.mjs';
import { requestSource } from './lib/webhook-bodies.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// The speed issue's goals (lib/http-goals.mjs): CPU per accepted webhook at >= 0.9 of a
// hand-written receiver keeping the same promises; a rejected request at most 1.10x the plain
// hand-written receiver's CPU; RSS growth within 20 MiB of the plain one's, past V8's
// one-time young-generation step. The goals stated before are judged beside them.
const MIB = 2 ** 20;
// The young generation's cap of every RSS run (both sides): V8 doubles it once from 16 to 32
// MiB when enough survives scavenges, and whichever side crosses that threshold first within
// the run would decide the comparison (bench/README.md, "Where the RSS growth comes from").
const SEMI_SPACE_MIB = 8;
// How long an RSS run's server idles before each reading (after the warm-up, after the run):
// V8's memory reducer gives back the heap's unused pages about 8 s after allocation stops, and
// until it has, up to 30 MiB of them (more on the Receiver's side) sit in the RSS or not
// depending on when it is read (bench/README.md, "Reading RSS when the heap has settled").
const RSS_SETTLE_S = 10;
const REJECTIONS = [
  { signing: 'wrong', name: 'wrongly signed' },
  { signing: 'unsigned', name: 'unsigned' },
];

const PAIRS = [
  { id: 'express', name: 'Express 5', framework: 'express', candidate: 'library' },
  { id: 'koa', name: 'Koa 3', framework: 'koa', candidate: 'library' },
  { id: 'hono', name: 'Hono (@hono/node-server 2)', framework: 'hono', candidate: 'library' },
  { id: 'fastify', name: 'Fastify 5', framework: 'fastify', candidate: 'library' },
  {
    id: 'fetch',
    name: 'Fetch handler (@hono/node-server 2)',
    framework: 'fetch',
    candidate: 'library',
  },
  { id: 'bun', name: 'Fetch handler (Bun.serve)', framework: 'bun', candidate: 'library' },
  {
    id: 'octokit',
    name: 'Octokit createNodeMiddleware (reference)',
    framework: 'node',
    candidate: 'octokit',
    reference: true,
  },
];

/**
 * Koa's accept path rebuilt layer by layer (`bench/lib/http-server.mjs`, `layerOf`): what each
 * guarantee costs per webhook over the hand-written receiver, measured like the rows above.
 */
const LAYER_STEPS = [
  { variant: 'baseline', name: 'hand-written: raw-body, createHmac, timingSafeEqual, JSON.parse' },
  {
    variant: 'verify-parse',
    name: 'core verify() and parseVerificationPayload() instead (strict UTF-8, prototype keys dropped, every field checked)',
  },
  { variant: 'replay', name: '+ the replay key (SHA-256 of the body) remembered in MemoryStore' },
  {
    variant: 'record',
    name: "+ the delivery's record: findByUser, insert leased, settle completed",
  },
  {
    variant: 'receive',
    name: '= receiver.receive(): + correlation, the event, lease renewal and acknowledgement timers, health counts, the answer',
  },
  {
    variant: 'library',
    name: '+ the Koa adapter: path match, body deadline, raw-body, the answer',
  },
];

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      'duration-s': { type: 'string' },
      'warmup-s': { type: 'string' },
      connections: { type: 'string' },
      'rss-requests': { type: 'string' },
      'semi-space-mib': { type: 'string' },
      'rss-settle-s': { type: 'string' },
      only: { type: 'string' },
      bun: { type: 'string' },
      reject: { type: 'boolean', default: true },
      rss: { type: 'boolean', default: true },
      layers: { type: 'boolean', default: true },
      promises: { type: 'boolean', default: true },
      'rss-only': { type: 'boolean', default: false },
    },
    allowNegative: true,
    strict: false,
  });
  const quick = values.quick === true;
  const number = (text, fallback) => (text === undefined ? fallback : Number(text));
  return {
    rounds: number(values.rounds, quick ? 2 : 4),
    durationS: number(values['duration-s'], quick ? 2 : 4),
    warmupS: number(values['warmup-s'], quick ? 0.5 : 1),
    connections: number(values.connections, 50),
    rssRequests: number(values['rss-requests'], quick ? 20_000 : 100_000),
    // 0: V8's own sizing, as runs before this option measured.
    semiSpaceMiB: number(values['semi-space-mib'], SEMI_SPACE_MIB),
    rssSettleS: number(values['rss-settle-s'], RSS_SETTLE_S),
    only: values.only ? String(values.only).split(',') : undefined,
    bun: values.bun === undefined ? 'bun' : String(values.bun),
    reject: values.reject !== false,
    rss: values.rss !== false,
    layers: values.layers !== false,
    promises: values.promises !== false,
    rssOnly: values['rss-only'] === true,
  };
}

const round1 = (value, digits = 1) => Number(value.toFixed(digits));

/** How a row's name says which hand-written receiver it was measured against. */
const AGAINST_SUFFIX = {
  plain: '',
  promises: ', against the same promises kept',
  'at-rest': ', against the same promises kept, at rest too',
};

/**
 * One row: ours against a hand-written receiver in alternating rounds. `against` is the
 * hand-written side: `plain` (the `baseline` server), `promises` (the one keeping the same
 * promises in process) or `at-rest` (that one, also keeping what ours keeps at rest); the
 * last two for accepted webhooks only.
 */
async function comparePair(pair, settings, signing = 'valid', against = 'plain') {
  const samples = { baseline: [], candidate: [] };
  const roundRatios = [];
  const baselineVariant = against === 'plain' ? 'baseline' : against;
  for (let round = 0; round < settings.rounds; round++) {
    const order = round % 2 === 0 ? ['baseline', 'candidate'] : ['candidate', 'baseline'];
    const result = {};
    for (const side of order) {
      const variant = side === 'baseline' ? baselineVariant : pair.candidate;
      result[side] = await measure(pair.framework, variant, settings, signing);
      samples[side].push(result[side]);
    }
    roundRatios.push(result.candidate.requestsPerSec / result.baseline.requestsPerSec);
    console.log(
      `  ${pair.name}${signing === 'valid' ? '' : ` (${signing})`}, round ${round + 1}/${settings.rounds}: ${baselineVariant} ${Math.round(result.baseline.requestsPerSec)} req/s, ` +
        `${pair.candidate} ${Math.round(result.candidate.requestsPerSec)} req/s (${roundRatios.at(-1).toFixed(2)})`,
    );
  }
  const med = (side, key) => median(samples[side].map((s) => s[key]));
  const baseline = {
    requestsPerSec: Math.round(med('baseline', 'requestsPerSec')),
    p50Ms: med('baseline', 'p50Ms'),
    p99Ms: med('baseline', 'p99Ms'),
    serverCpuMicrosPerRequest: round1(med('baseline', 'serverCpuMicrosPerRequest')),
    serverCpuLoad: round1(med('baseline', 'serverCpuLoad'), 2),
  };
  const candidate = {
    requestsPerSec: Math.round(med('candidate', 'requestsPerSec')),
    p50Ms: med('candidate', 'p50Ms'),
    p99Ms: med('candidate', 'p99Ms'),
    serverCpuMicrosPerRequest: round1(med('candidate', 'serverCpuMicrosPerRequest')),
    serverCpuLoad: round1(med('candidate', 'serverCpuLoad'), 2),
  };
  const ratio = med('candidate', 'requestsPerSec') / med('baseline', 'requestsPerSec');
  return {
    id: pair.id,
    name: `${pair.name}${AGAINST_SUFFIX[against]}`,
    signing,
    against,
    reference: pair.reference === true,
    candidate: pair.candidate,
    baseline,
    [pair.candidate]: candidate,
    ratio: round1(ratio, 3),
    roundRatioRange: [round1(Math.min(...roundRatios), 3), round1(Math.max(...roundRatios), 3)],
    p99Ratio: round1(candidate.p99Ms / baseline.p99Ms, 3),
    cpuPerRequestRatio: round1(
      baseline.serverCpuMicrosPerRequest / candidate.serverCpuMicrosPerRequest,
      3,
    ),
    samples,
  };
}

/** Each layer of `LAYER_STEPS` in rotating rounds: median CPU per request, and its increase. */
async function measureLayers(settings) {
  const samples = new Map(LAYER_STEPS.map((step) => [step.variant, []]));
  for (let round = 0; round < settings.rounds; round++) {
    const order = round % 2 === 0 ? LAYER_STEPS : [...LAYER_STEPS].reverse();
    for (const step of order) {
      const { serverCpuMicrosPerRequest } = await measure('koa', step.variant, settings);
      samples.get(step.variant).push(round1(serverCpuMicrosPerRequest));
    }
    console.log(`  Koa layers, round ${round + 1}/${settings.rounds}`);
  }
  let before;
  return LAYER_STEPS.map((step) => {
    const cpu = round1(median(samples.get(step.variant)));
    const row = {
      ...step,
      cpuMicrosPerRequest: cpu,
      addedMicros: before === undefined ? null : round1(cpu - before),
      samples: samples.get(step.variant),
    };
    before = cpu;
    return row;
  });
}

/**
 * RSS of one server over `amount` requests: sampled before (after a warm-up, the settling idle
 * time and a GC), every second under load, and after (the same idle time and a GC). V8's heap
 * as committed and the bytes outside it are kept beside the RSS, to tell what grew.
 */
async function rssRun(framework, variant, label, settings, args = []) {
  const server = await startServer(framework, variant, {
    args,
    // Bun takes no Node flags (runtimeOf drops them): its collector sizes its heap its own way.
    execArgv: [
      '--expose-gc',
      // Pages a GC emptied are unmapped within the GC, not later on a background thread, so
      // RSS read right after it no longer holds them. Only sweeping changes; marking and
      // scavenges stay parallel.
      '--no-concurrent-sweeping',
      ...(settings.semiSpaceMiB ? [`--max-semi-space-size=${settings.semiSpaceMiB}`] : []),
    ],
    ...runtimeOf(framework, settings),
  });
  try {
    const source = requestSource({ tag: 'r' });
    const settle = () => new Promise((resolve) => setTimeout(resolve, settings.rssSettleS * 1000));
    await load(server.url, source, { connections: settings.connections, amount: 5000 });
    await settle();
    const before = await server.gc();
    const start = source.sent;
    const samples = [{ served: 0, rss: before.rss, heapUsed: before.heapUsed }];
    let done = false;
    const sampling = (async () => {
      while (!done) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        if (done) break;
        const stats = await server.stats();
        samples.push({ served: source.sent - start, rss: stats.rss, heapUsed: stats.heapUsed });
      }
    })();
    const result = await load(server.url, source, {
      connections: settings.connections,
      amount: settings.rssRequests,
    });
    done = true;
    await sampling;
    await settle();
    const after = await server.gc();
    samples.push({ served: source.sent - start, rss: after.rss, heapUsed: after.heapUsed });
    const mib = (bytes) => round1(bytes / MIB);
    const row = {
      framework,
      variant,
      label,
      requests: result['2xx'],
      non2xx: result.non2xx,
      handled: after.handled - before.handled,
      rssBeforeMiB: mib(before.rss),
      rssAfterMiB: mib(after.rss),
      rssPeakMiB: mib(Math.max(...samples.map((s) => s.rss))),
      rssGrowthMiB: mib(after.rss - before.rss),
      heapBeforeMiB: mib(before.heapUsed),
      heapAfterMiB: mib(after.heapUsed),
      heapGrowthMiB: mib(after.heapUsed - before.heapUsed),
      heapBytesPerRequest: Math.round((after.heapUsed - before.heapUsed) / result['2xx']),
      heapTotalBeforeMiB: mib(before.heapTotal),
      heapTotalAfterMiB: mib(after.heapTotal),
      externalGrowthMiB: mib(after.external - before.external),
      arrayBuffersGrowthMiB: mib(after.arrayBuffers - before.arrayBuffers),
      samples: samples.map((s) => ({
        served: s.served,
        rssMiB: mib(s.rss),
        heapMiB: mib(s.heapUsed),
      })),
    };
    console.log(
      `  ${framework}/${label}: ${row.requests} requests, RSS ${row.rssBeforeMiB} → ${row.rssAfterMiB} MiB ` +
        `(peak ${row.rssPeakMiB}), heap ${row.heapBeforeMiB} → ${row.heapAfterMiB} MiB ` +
        `(committed ${row.heapTotalBeforeMiB} → ${row.heapTotalAfterMiB}), external ` +
        `+${row.externalGrowthMiB} MiB`,
    );
    return row;
  } finally {
    await server.stop();
  }
}

async function main() {
  for (const name of ['core', 'express', 'koa', 'hono', 'fastify', 'fetch']) {
    if (!existsSync(new URL(`../packages/${name}/dist/index.js`, import.meta.url))) {
      console.error(
        `packages/${name}/dist is missing: run \`pnpm build\` first (\`pnpm bench:http\` does).`,
      );
      process.exit(1);
    }
  }
  const settings = options();
  const machine = machineInfo(ROOT);
  console.log(
    `http: adapters vs hand-written receivers in the same framework (autocannon, 127.0.0.1)\n` +
      `${machine.cpu} x${machine.cpuCount}, Node ${machine.node}; ${settings.rounds} rounds of ` +
      `${settings.durationS} s after ${settings.warmupS} s warm-up, ${settings.connections} connections, ` +
      `distinct signed 2 KiB bodies\n`,
  );
  const pairs = PAIRS.filter((pair) => !settings.only || settings.only.includes(pair.id)).filter(
    (pair) => {
      if (pair.framework !== 'bun') return true;
      const probe = spawnSync(settings.bun, ['--version'], { encoding: 'utf8' });
      if (probe.status === 0) return true;
      console.log(`No Bun at "${settings.bun}" (--bun=<path>): the Bun.serve rows are left out.\n`);
      return false;
    },
  );
  // --rss-only: the CPU rows and layers of the last full run are kept as they were measured.
  const kept = settings.rssOnly ? lastResults() : undefined;
  const comparisons = kept ? kept.comparisons : [];
  for (const pair of kept ? [] : pairs) {
    comparisons.push(await comparePair(pair, settings));
    if (settings.promises && !pair.reference) {
      comparisons.push(await comparePair(pair, settings, 'valid', 'promises'));
      comparisons.push(await comparePair(pair, settings, 'valid', 'at-rest'));
    }
    if (!settings.reject || pair.reference) continue;
    for (const { signing } of REJECTIONS) {
      comparisons.push(await comparePair(pair, settings, signing));
    }
  }

  const rowName = (c) =>
    c.signing === 'valid'
      ? c.name
      : `${c.name}, ${REJECTIONS.find((r) => r.signing === c.signing).name}`;
  console.log(
    `\n${table(
      [
        'framework',
        'baseline req/s',
        'ours req/s',
        'ratio',
        'rounds',
        'p99 base ms',
        'p99 ours ms',
        'cpu µs/req base',
        'cpu µs/req ours',
        'cpu ratio',
        'cpu load base/ours',
      ],
      comparisons.map((c) => [
        rowName(c),
        c.baseline.requestsPerSec.toLocaleString('en-US'),
        c[c.candidate].requestsPerSec.toLocaleString('en-US'),
        c.ratio.toFixed(2),
        c.roundRatioRange.map((r) => r.toFixed(2)).join('–'),
        String(c.baseline.p99Ms),
        String(c[c.candidate].p99Ms),
        c.baseline.serverCpuMicrosPerRequest.toFixed(0),
        c[c.candidate].serverCpuMicrosPerRequest.toFixed(0),
        c.cpuPerRequestRatio.toFixed(2),
        `${c.baseline.serverCpuLoad.toFixed(2)}/${c[c.candidate].serverCpuLoad.toFixed(2)}`,
      ]),
    )}`,
  );
  let layers = kept?.layers;
  if (!kept && settings.layers && (!settings.only || settings.only.includes('koa'))) {
    console.log('\nWhere the CPU of an accepted webhook goes: Koa, layer by layer');
    layers = await measureLayers(settings);
    console.log(
      `\n${table(
        ['layer', 'cpu µs/req', 'added µs'],
        layers.map((l) => [
          l.name,
          l.cpuMicrosPerRequest.toFixed(1),
          l.addedMicros === null ? '' : l.addedMicros.toFixed(1),
        ]),
      )}`,
    );
  }

  const rss = [];
  if (settings.rss) {
    console.log(
      `\nRSS of the server process over ${settings.rssRequests.toLocaleString('en-US')} requests (${semiSpaceText(settings)})`,
    );
    for (const pair of pairs.filter((p) => !p.reference)) {
      rss.push(await rssRun(pair.framework, 'baseline', 'baseline', settings));
      if (settings.promises) {
        rss.push(
          await rssRun(
            pair.framework,
            'promises',
            'hand-written keeping the same promises',
            settings,
          ),
        );
      }
      rss.push(
        await rssRun(pair.framework, 'library', 'library, default 24 h replay window', settings),
      );
      rss.push(
        await rssRun(pair.framework, 'library', 'library, 1 s replay window', settings, [
          '--replay-window-ms=1000',
        ]),
      );
    }
    console.log(
      `\n${table(
        [
          'server',
          'requests',
          'RSS before MiB',
          'RSS after MiB',
          'growth MiB',
          'heap growth MiB',
          'heap B/req',
          'external growth MiB',
        ],
        rss.map((r) => [
          `${r.framework} ${r.label}`,
          String(r.requests),
          r.rssBeforeMiB.toFixed(1),
          r.rssAfterMiB.toFixed(1),
          r.rssGrowthMiB.toFixed(1),
          r.heapGrowthMiB.toFixed(1),
          String(r.heapBytesPerRequest),
          r.externalGrowthMiB.toFixed(1),
        ]),
      )}`,
    );
  }
  // Judged from the rows alone, as the report judges any results file.
  const { issue, atRest, earlier } = httpGoals({ comparisons, rss, settings });
  console.log('');
  for (const goal of Object.values(issue)) {
    console.log(`goal: ${goal.description}: ${verdict(goal)}`);
  }
  for (const goal of Object.values(atRest)) {
    console.log(`for comparison: ${goal.description}: ${verdict(goal)}`);
  }
  for (const goal of Object.values(earlier)) {
    console.log(`earlier goal: ${goal.description}: ${verdict(goal)}`);
  }

  const file = writeResults(BENCH_DIR, 'http', {
    benchmark: 'http',
    description:
      'server CPU per request, req/s and latency of each adapter (built dist, createReceiver with MemoryStore, client: false) vs a hand-written receiver in the same framework (raw body + createHmac + timingSafeEqual + JSON.parse), for accepted webhooks and for floods of wrongly signed and unsigned requests; for accepted webhooks also vs a hand-written receiver keeping the same promises (against: promises: a Map replay window, pending results retried after a throwing handler, a body deadline timer, a rejection log of one line a minute per kind), and vs that one also keeping what ours keeps at rest (against: at-rest: the user id and record key as HMAC-SHA256, the result sealed with AES-256-GCM, base64url); autocannon on 127.0.0.1, servers in child processes, distinct 2 KiB bodies; medians of alternating rounds. Octokit createNodeMiddleware vs a node:http hand-written receiver as a reference. RSS runs with --max-semi-space-size=settings.semiSpaceMiB on both sides (0: V8 defaults), and --no-concurrent-sweeping (pages a GC emptied unmapped within it), read after settings.rssSettleS of idling (time for the V8 memory reducer to give back unused heap, which it does not always take) and a full GC, before and after.',
    machine,
    versions: packageVersions(ROOT, [
      'express',
      'koa',
      'hono',
      '@hono/node-server',
      'fastify',
      '@octokit/webhooks',
      'autocannon',
    ]),
    bun: pairs.some((p) => p.framework === 'bun')
      ? spawnSync(settings.bun, ['--version'], { encoding: 'utf8' }).stdout.trim()
      : undefined,
    // The Bun executable's path is this machine's, not a setting of the run.
    settings: kept
      ? { ...kept.settings, ...rssSettings(settings) }
      : { ...settings, bun: undefined },
    goals: issue,
    atRestGoals: atRest,
    earlierGoals: earlier,
    comparisons,
    layers,
    rss,
    // When and where the memory rows were measured, when not with the rows above them.
    ...(kept ? { machine: kept.machine, rssMachine: machine } : {}),
  });
  console.log(`results: ${file.slice(ROOT.length)}`);
}

/** The results of the last run, whose CPU rows and layers `--rss-only` keeps. */
function lastResults() {
  const file = join(BENCH_DIR, 'results', 'http.json');
  if (!existsSync(file)) {
    console.error('--rss-only keeps the rows of a full run: run `pnpm bench:http` once first.');
    process.exit(1);
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The settings an RSS run depends on, recorded in place of the kept run's. */
const rssSettings = ({ rssRequests, semiSpaceMiB, rssSettleS, promises, only }) => ({
  rssRequests,
  semiSpaceMiB,
  rssSettleS,
  promises,
  only,
});

await main();
