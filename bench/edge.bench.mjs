#!/usr/bin/env node
// Edge size and start-up: the minified and gzipped size of a Worker (Hono + the webhook
// middleware + D1Store) against a hand-written Worker verifier on Hono, both bundled by esbuild
// for workerd from the built packages; and how long `createReceiver()` takes, cold (a fresh
// process importing @faceverify/core and creating one Receiver) and warm (each further one).
//
// usage: node bench/edge.bench.mjs [--rounds=N]
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { benchOptions, machineInfo, median, table, writeResults } from './harness.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KIB = 1024;

const WORKERS = [
  { id: 'ours', name: 'Hono + @faceverify/hono + D1Store (cron sweep)', entry: 'ours.worker.mjs' },
  {
    id: 'hand-written',
    name: 'Hono + hand-written Web Crypto verifier',
    entry: 'hand-written.worker.mjs',
  },
];

/** Which package a bundled input belongs to: `@faceverify/<name>`, a dependency, or the Worker. */
function packageOf(input) {
  const ours = /(?:^|\/)packages\/([^/]+)\/dist\//.exec(input);
  if (ours) return `@faceverify/${ours[1]}`;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(input);
  return dependency ? dependency[1] : 'the Worker itself';
}

// Double-quoted literals, matched from the start so that each match is one literal; one of 60
// characters or more is a message that says how to fix something (error answers,
// configuration errors, log lines).
const LITERAL = /"(?:[^"\\\n]|\\.)*"/g;
const isMessage = (literal) => literal.length >= 60;

/** Bundles a Worker as Wrangler does (esbuild, ESM, the workerd conditions), minified. */
async function workerSize(entry) {
  const result = await build({
    entryPoints: [join(BENCH_DIR, 'edge', entry)],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    // The workspace packages, as an app that installed them resolves them.
    nodePaths: [join(ROOT, 'node_modules', '.pnpm', 'node_modules')],
    write: false,
    logLevel: 'error',
    metafile: true,
  });
  const code = result.outputFiles[0].contents;
  const gzippedBytes = gzipSync(code, { level: 9 }).byteLength;
  // Where the minified bytes come from, by package, largest first.
  const byPackage = new Map();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(input);
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  const text = result.outputFiles[0].text;
  const messages = (text.match(LITERAL) ?? []).filter(isMessage);
  const withoutMessages = gzipSync(
    text.replace(LITERAL, (literal) => (isMessage(literal) ? '""' : literal)),
    { level: 9 },
  ).byteLength;
  return {
    minifiedBytes: code.byteLength,
    gzippedBytes,
    packages: [...byPackage]
      .map(([name, minifiedBytes]) => ({ name, minifiedBytes }))
      .sort((a, b) => b.minifiedBytes - a.minifiedBytes),
    messages: {
      count: messages.length,
      minifiedBytes: messages.reduce((sum, message) => sum + message.length, 0),
      gzippedBytes: gzippedBytes - withoutMessages,
    },
  };
}

const COLD = `
const started = performance.now();
const { createReceiver, MemoryStore } = await import(process.argv[1]);
const imported = performance.now();
createReceiver({ secret: 'whsec_edge_bench', client: false, store: new MemoryStore() });
const created = performance.now();
const warm = [];
for (let i = 0; i < 200; i++) {
  const t = performance.now();
  createReceiver({ secret: 'whsec_edge_bench', client: false, store: new MemoryStore() });
  warm.push(performance.now() - t);
}
warm.sort((a, b) => a - b);
console.log(JSON.stringify({ importMs: imported - started, firstCreateMs: created - imported, warmCreateMs: warm[100] }));
`;

/** Start-up in a fresh Node process each round: import core, then the first and later Receivers. */
function startup(rounds) {
  const entry = join(ROOT, 'packages', 'core', 'dist', 'index.js');
  const runs = [];
  for (let round = 0; round < rounds; round++) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', COLD, entry], {
      encoding: 'utf8',
    });
    runs.push(JSON.parse(out));
  }
  const med = (key) => Number(median(runs.map((run) => run[key])).toFixed(3));
  return {
    importMs: med('importMs'),
    firstCreateMs: med('firstCreateMs'),
    warmCreateMs: med('warmCreateMs'),
    runs,
  };
}

async function main() {
  const settings = benchOptions();
  const rounds = Math.max(settings.rounds, 5);
  const sizes = [];
  for (const worker of WORKERS) sizes.push({ ...worker, ...(await workerSize(worker.entry)) });
  console.log(
    table(
      ['Worker', 'minified KiB', 'gzipped KiB'],
      sizes.map((s) => [
        s.name,
        (s.minifiedBytes / KIB).toFixed(1),
        (s.gzippedBytes / KIB).toFixed(1),
      ]),
    ),
  );
  for (const size of sizes) {
    console.log(
      `\n${size.name}, minified bytes by package: ` +
        size.packages.map((p) => `${p.name} ${(p.minifiedBytes / KIB).toFixed(1)} KiB`).join(', ') +
        `; ${size.messages.count} messages of 60 characters or more: ` +
        `${(size.messages.minifiedBytes / KIB).toFixed(1)} KiB minified, ` +
        `${(size.messages.gzippedBytes / KIB).toFixed(1)} KiB gzipped`,
    );
  }
  const start = startup(rounds);
  console.log(
    `\ncreateReceiver() on Node, median of ${rounds} fresh processes: import of @faceverify/core ${start.importMs} ms, ` +
      `first createReceiver() ${start.firstCreateMs} ms, each later one ${start.warmCreateMs} ms`,
  );
  const file = writeResults(BENCH_DIR, 'edge', {
    benchmark: 'edge',
    description:
      'minified and gzipped (level 9) size of a Worker bundled by esbuild for workerd: Hono + @faceverify/hono + D1Store against Hono + a hand-written Web Crypto verifier, with the minified bytes by package and the share of long messages (double-quoted literals of 60 characters or more); createReceiver() start-up time in fresh Node processes (import, first, later Receivers).',
    machine: machineInfo(ROOT),
    settings: { rounds },
    sizes: sizes.map(({ entry, ...size }) => size),
    ratio: Number((sizes[0].gzippedBytes / sizes[1].gzippedBytes).toFixed(2)),
    startup: start,
  });
  console.log(`results: ${file.slice(ROOT.length)}`);
}

await main();
