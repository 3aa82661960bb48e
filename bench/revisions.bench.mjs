#!/usr/bin/env node
// Before and after a change, in the same run: each adapter's server CPU per request at another
// revision of this repository (`--against`, checked out and built beside it, its own bench
// server running its library with its own frameworks) and at this checkout, each beside the
// plain hand-written receiver of this checkout's framework, in rotating rounds,
// for accepted webhooks and for floods of wrongly signed and unsigned requests. A ratio to the
// hand-written receiver that is lower after than before is a change that made the library
// dearer; both are measured under the same load, so a busy machine moves them alike. First,
// `receiver.receive()` alone at each revision, in process (bench/lib/receive-loop.mjs): the
// library's own work, without the network and load generator that make HTTP rounds noisy.
//
// usage: node bench/revisions.bench.mjs --against=<revision> [--rounds=N] [--duration-s=N]
//                                       [--warmup-s=N] [--connections=N]
//                                       [--only=express,koa,hono,fastify,fetch]
//                                       [--signing=valid,wrong,unsigned] [--keep-checkout]
//        node bench/revisions.bench.mjs --against=<revision> --recheck [--rounds=7]
//
// `--recheck` measures again, in more rounds (7 unless given), only the rows the last run
// (bench/results/revisions.json, against the same revision) found dearer after, and writes
// bench/results/revisions-recheck.json: three rounds of one run can disagree by more than the
// tolerance, so a row found dearer once is measured again before it counts.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineInfo, median, table, writeResults } from './harness.mjs';
import { measure } from './lib/measure-server.mjs';
import { builtRevision } from './lib/revision-checkout.mjs';
import {
  droppedRows,
  HTTP_COLUMNS,
  httpCells,
  IN_PROCESS_COLUMNS,
  inProcessCells,
  rowNames,
  SIGNINGS,
} from './lib/revision-tables.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const RECEIVE_LOOP = fileURLToPath(new URL('./lib/receive-loop.mjs', import.meta.url));
const PACKAGES = fileURLToPath(new URL('../packages/', import.meta.url));
// Calls of receive() per in-process measurement.
const LOOP_CALLS = 20_000;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// A row whose CPU per request is more than this much dearer after than before (median of the
// rounds' own before/after ratios) counts as dropped: below it, rounds of one run disagree.
const TOLERANCE = 0.05;
const FRAMEWORKS = [
  { id: 'express', name: 'Express 5' },
  { id: 'koa', name: 'Koa 3' },
  { id: 'hono', name: 'Hono (@hono/node-server 2)' },
  { id: 'fastify', name: 'Fastify 5' },
  { id: 'fetch', name: 'Fetch handler (@hono/node-server 2)' },
];

function options() {
  const { values } = parseArgs({
    options: {
      against: { type: 'string' },
      rounds: { type: 'string' },
      'duration-s': { type: 'string', default: '4' },
      'warmup-s': { type: 'string', default: '1' },
      connections: { type: 'string', default: '50' },
      only: { type: 'string' },
      signing: { type: 'string', default: Object.keys(SIGNINGS).join(',') },
      'keep-checkout': { type: 'boolean', default: false },
      recheck: { type: 'boolean', default: false },
    },
  });
  if (!values.against) {
    console.error(
      'Name the revision to compare with: --against=<revision> (main, HEAD~1, a commit).',
    );
    process.exit(2);
  }
  return {
    against: values.against,
    rounds: Number(values.rounds ?? (values.recheck ? 7 : 3)),
    durationS: Number(values['duration-s']),
    warmupS: Number(values['warmup-s']),
    connections: Number(values.connections),
    only: values.only?.split(','),
    signings: values.signing.split(','),
    keepCheckout: values['keep-checkout'],
    recheck: values.recheck,
  };
}

/** What the last run found dearer after: the rows `--recheck` measures again. */
function flaggedByLastRun(againstSha) {
  const last = JSON.parse(readFileSync(join(BENCH_DIR, 'results', 'revisions.json'), 'utf8'));
  if (last.against.sha !== againstSha) {
    throw new Error(
      `--recheck: the last run (bench/results/revisions.json) was against ${last.against.revision} (${last.against.sha.slice(0, 12)}), not this revision: run it against this one first.`,
    );
  }
  return {
    of: { commit: last.machine.commit, date: last.machine.date, rounds: last.settings.rounds },
    inProcess: last.inProcess.filter((row) => row.dropped).map((row) => row.signing),
    rows: last.rows.filter((row) => row.dropped).map(({ id, signing }) => ({ id, signing })),
  };
}

const round = (value, digits = 2) => Number(value.toFixed(digits));

/** One framework and kind of request: the three servers in rotating rounds. */
async function compare(framework, signing, settings, serverBefore) {
  const sides = [
    { side: 'plain', variant: 'baseline' },
    { side: 'before', variant: 'library', server: serverBefore },
    { side: 'after', variant: 'library' },
  ];
  const cpu = { plain: [], before: [], after: [] };
  const changes = [];
  for (let r = 0; r < settings.rounds; r++) {
    const order = [...sides.slice(r % 3), ...sides.slice(0, r % 3)];
    for (const { side, variant, server } of order) {
      const result = await measure(framework.id, variant, settings, signing, server);
      cpu[side].push(result.serverCpuMicrosPerRequest);
    }
    changes.push(cpu.before.at(-1) / cpu.after.at(-1));
    console.log(
      `  ${framework.name}, ${SIGNINGS[signing]}, round ${r + 1}/${settings.rounds}: CPU µs/request ` +
        `plain ${cpu.plain.at(-1).toFixed(0)}, before ${cpu.before.at(-1).toFixed(0)}, after ${cpu.after.at(-1).toFixed(0)}`,
    );
  }
  const plain = median(cpu.plain);
  const before = median(cpu.before);
  const after = median(cpu.after);
  const change = median(changes);
  return {
    id: framework.id,
    name: framework.name,
    signing,
    cpuMicrosPerRequest: {
      plain: round(plain, 1),
      before: round(before, 1),
      after: round(after, 1),
    },
    ratioBefore: round(plain / before, 3),
    ratioAfter: round(plain / after, 3),
    change: round(change, 3),
    changeRange: [round(Math.min(...changes), 3), round(Math.max(...changes), 3)],
    dropped: change < 1 - TOLERANCE,
    samples: cpu,
  };
}

/**
 * `receiver.receive()` alone, in process, at both revisions: a fresh process per measurement,
 * the two in turn for `rounds` × 2 measurements. No network and no load generator share the
 * CPU, so this is the steadier measure of the library's own work.
 */
function compareInProcess(signing, settings, packagesBefore) {
  const cpu = { before: [], after: [] };
  const changes = [];
  for (let r = 0; r < settings.rounds * 2; r++) {
    const order = r % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const side of order) {
      const packages = side === 'before' ? packagesBefore : PACKAGES;
      const output = execFileSync(
        process.execPath,
        [RECEIVE_LOOP, packages, signing, String(LOOP_CALLS)],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      );
      const { cpuMicrosPerReceive, statuses } = JSON.parse(output);
      const expected = signing === 'valid' ? 200 : 401;
      if (statuses.length !== 1 || statuses[0] !== expected) {
        throw new Error(`receive() at ${side} answered ${statuses.join(', ')}, not ${expected}`);
      }
      cpu[side].push(cpuMicrosPerReceive);
    }
    changes.push(cpu.before.at(-1) / cpu.after.at(-1));
  }
  const change = median(changes);
  console.log(
    `  receive() in process, ${SIGNINGS[signing]}: before ${median(cpu.before).toFixed(1)} µs, after ${median(cpu.after).toFixed(1)} µs`,
  );
  return {
    signing,
    cpuMicrosPerReceive: {
      before: round(median(cpu.before), 1),
      after: round(median(cpu.after), 1),
    },
    change: round(change, 3),
    changeRange: [round(Math.min(...changes), 3), round(Math.max(...changes), 3)],
    dropped: change < 1 - TOLERANCE,
    samples: cpu,
  };
}

async function main() {
  const settings = options();
  const checkout = builtRevision(ROOT, settings.against);
  const machine = machineInfo(ROOT);
  const here = machine.commit ?? 'this checkout';
  console.log(
    `revisions: ${settings.against} (${checkout.sha.slice(0, 12)}) against ${here}, each adapter beside ` +
      `its plain hand-written receiver\n${machine.cpu} x${machine.cpuCount}, Node ${machine.node}; ` +
      `${settings.rounds} rotating rounds of ${settings.durationS} s after ${settings.warmupS} s warm-up\n`,
  );
  const rows = [];
  const inProcess = [];
  const measuring = {
    inProcess: settings.signings,
    rows: FRAMEWORKS.filter((f) => !settings.only || settings.only.includes(f.id)).flatMap(
      ({ id }) => settings.signings.map((signing) => ({ id, signing })),
    ),
  };
  let recheckOf;
  try {
    if (settings.recheck) {
      const flagged = flaggedByLastRun(checkout.sha);
      recheckOf = flagged.of;
      Object.assign(measuring, flagged);
      console.log(
        `Measured again: the ${flagged.inProcess.length + flagged.rows.length} rows the run of ${flagged.of.commit} found dearer.\n`,
      );
    }
    for (const signing of measuring.inProcess) {
      inProcess.push(compareInProcess(signing, settings, checkout.packages));
    }
    for (const { id, signing } of measuring.rows) {
      const framework = FRAMEWORKS.find((f) => f.id === id);
      rows.push(await compare(framework, signing, settings, checkout.server));
    }
  } finally {
    if (!settings.keepCheckout) checkout.remove();
  }
  console.log(`\n${table(HTTP_COLUMNS, rows.map(httpCells))}`);
  console.log(`\n${table(IN_PROCESS_COLUMNS, inProcess.map(inProcessCells))}`);
  const dropped = droppedRows(inProcess, rows);
  console.log(
    dropped.length === 0
      ? `\nNo ratio dropped by more than ${TOLERANCE * 100}%.`
      : `\nDropped by more than ${TOLERANCE * 100}%: ${rowNames(dropped)}.`,
  );
  const file = writeResults(BENCH_DIR, settings.recheck ? 'revisions-recheck' : 'revisions', {
    benchmark: 'revisions',
    description:
      "CPU per receiver.receive() in process (a fresh process per measurement, MemoryStore, distinct 2 KiB bodies, the revisions in turn), and server CPU per request of each adapter, at two revisions (before: --against, checked out and built in a git worktree, its own bench server; after: this checkout), each adapter beside the framework's plain hand-written receiver, in rotating rounds of one run; ratio = plain CPU / ours; before/after = median over rounds of before CPU / after CPU (above 1: cheaper after)",
    machine,
    against: { revision: settings.against, sha: checkout.sha },
    settings: { ...settings, keepCheckout: undefined, recheck: undefined },
    ...(recheckOf ? { recheckOf } : {}),
    tolerance: TOLERANCE,
    loopCalls: LOOP_CALLS,
    inProcess,
    rows,
  });
  console.log(`results: ${file.slice(ROOT.length)}`);
}

await main();
