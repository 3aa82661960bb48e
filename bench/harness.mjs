// A small benchmark harness shared by bench/*.bench.mjs: paired comparisons of a hand-written
// baseline and our code, in one process, alternating which goes first in each round so that
// warm-up drift, frequency scaling and GC pressure fall on both alike.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

/** Run settings, from the command line (`--quick` for a fast smoke run). */
export function benchOptions(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      'sample-ms': { type: 'string' },
      'warmup-ms': { type: 'string' },
    },
    // run-all passes its own arguments through; ignore what this bench does not know.
    strict: false,
  });
  const defaults = values.quick
    ? { rounds: 4, sampleMs: 100, warmupMs: 300 }
    : { rounds: 10, sampleMs: 250, warmupMs: 1000 };
  const number = (text, fallback) => (text === undefined ? fallback : Number(text));
  return {
    rounds: number(values.rounds, defaults.rounds),
    sampleMs: number(values['sample-ms'], defaults.sampleMs),
    warmupMs: number(values['warmup-ms'], defaults.warmupMs),
  };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// Results go to a sink the optimiser cannot see through, so no call is dead code.
let sink = 0;

/**
 * Calls `fn` in batches until `ms` have passed; returns calls per second. Async functions are
 * awaited one call at a time, as a request handler would; a synchronous function is called
 * without any await, as hand-written code would.
 */
async function sample(fn, isAsync, ms, batch) {
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    if (isAsync) {
      for (let i = 0; i < batch; i++) if (await fn()) sink++;
    } else {
      for (let i = 0; i < batch; i++) if (fn()) sink++;
    }
    calls += batch;
    elapsed = performance.now() - start;
  } while (elapsed < ms);
  return (calls / elapsed) * 1000;
}

/** Runs `fn` for `ms` and picks a batch size of about 1 ms, so clock reads cost nothing. */
async function warmUp(fn, isAsync, ms) {
  const opsPerSecond = await sample(fn, isAsync, ms, 16);
  return Math.max(1, Math.round(opsPerSecond / 1000));
}

/**
 * Compares `candidate` with `baseline`: warm-up, then `rounds` rounds of one sample each,
 * alternating the order. Both must return truthy for the benchmarked input (checked first,
 * so a broken setup cannot produce a flattering number).
 *
 * @returns {Promise<{ baseline: number, candidate: number, ratio: number,
 *   samples: { baseline: number[], candidate: number[] }, roundRatios: number[] }>}
 */
export async function compare({ baseline, candidate }, { rounds, sampleMs, warmupMs }) {
  const fns = { baseline, candidate };
  const kinds = {};
  for (const [name, fn] of Object.entries(fns)) {
    const first = fn();
    kinds[name] = typeof first?.then === 'function';
    if (!(await first)) throw new Error(`${name} returned a falsy result for the benchmark input`);
  }
  const batches = {};
  for (const name of Object.keys(fns)) {
    batches[name] = await warmUp(fns[name], kinds[name], warmupMs);
  }
  const samples = { baseline: [], candidate: [] };
  const roundRatios = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['baseline', 'candidate'] : ['candidate', 'baseline'];
    const result = {};
    for (const name of order) {
      result[name] = await sample(fns[name], kinds[name], sampleMs, batches[name]);
      samples[name].push(result[name]);
    }
    roundRatios.push(result.candidate / result.baseline);
  }
  const base = median(samples.baseline);
  const cand = median(samples.candidate);
  if (sink === -1) console.log(sink);
  return { baseline: base, candidate: cand, ratio: cand / base, samples, roundRatios };
}

/**
 * Compares several candidates with one `baseline` in the same rounds: each round samples the
 * baseline and every candidate once, in an order rotated by one each round, so drift falls on
 * all alike. Every function must return truthy for the benchmarked input (checked first).
 *
 * @param {{ baseline: () => unknown, candidates: Record<string, () => unknown> }} fns
 * @returns {Promise<{ baseline: number, candidates: Record<string, { opsPerSec: number,
 *   ratio: number, roundRatios: number[], samples: number[] }>, samples: number[] }>}
 */
export async function compareMany({ baseline, candidates }, { rounds, sampleMs, warmupMs }) {
  const fns = { baseline, ...candidates };
  const names = Object.keys(fns);
  const kinds = {};
  const batches = {};
  for (const name of names) {
    const first = fns[name]();
    kinds[name] = typeof first?.then === 'function';
    if (!(await first)) throw new Error(`${name} returned a falsy result for the benchmark input`);
    batches[name] = await warmUp(fns[name], kinds[name], warmupMs);
  }
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const shift = round % names.length;
    const order = [...names.slice(shift), ...names.slice(0, shift)];
    for (const name of order) {
      samples[name].push(await sample(fns[name], kinds[name], sampleMs, batches[name]));
    }
  }
  const base = median(samples.baseline);
  if (sink === -1) console.log(sink);
  return {
    baseline: base,
    samples: samples.baseline,
    candidates: Object.fromEntries(
      Object.keys(candidates).map((name) => {
        const ops = median(samples[name]);
        return [
          name,
          {
            opsPerSec: ops,
            ratio: ops / base,
            roundRatios: samples[name].map((value, i) => value / samples.baseline[i]),
            samples: samples[name],
          },
        ];
      }),
    ),
  };
}

/** What a reader needs to compare numbers between machines and commits. */
export function machineInfo(root) {
  let commit = null;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    // Not a checkout (e.g. an unpacked tarball): the commit is simply unknown.
  }
  const cpuList = cpus();
  return {
    cpu: cpuList[0]?.model?.trim() ?? 'unknown',
    cpuCount: cpuList.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    platform: `${process.platform}-${process.arch}`,
    os: `${type()} ${release()}`,
    node: process.version,
    v8: process.versions.v8,
    openssl: process.versions.openssl,
    date: new Date().toISOString(),
    commit,
  };
}

/**
 * Versions of the packages a benchmark compares, as installed (read from their package.json
 * under the root's node_modules); `@faceverify/*` names are read from packages/.
 */
export function packageVersions(root, names) {
  const versions = {};
  for (const name of names) {
    const file = name.startsWith('@faceverify/')
      ? join(root, 'packages', name.slice('@faceverify/'.length), 'package.json')
      : join(root, 'node_modules', name, 'package.json');
    try {
      versions[name] = JSON.parse(readFileSync(file, 'utf8')).version;
    } catch {
      versions[name] = null;
    }
  }
  return versions;
}

/** Writes `bench/results/<name>.json` whole or not at all (readers never see half a file). */
export function writeResults(benchDir, name, data) {
  const dir = join(benchDir, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}

/** Formats rows as an aligned text table; numeric columns are right-aligned. */
export function table(header, rows) {
  const all = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, col) => Math.max(...all.map((row) => row[col].length)));
  const isNumeric = header.map((_, col) =>
    rows.every((row) => /^[\d.,x%+-]+$/.test(String(row[col]))),
  );
  const line = (row) =>
    row
      .map((cell, col) => (isNumeric[col] ? cell.padStart(widths[col]) : cell.padEnd(widths[col])))
      .join('  ')
      .trimEnd();
  return [
    line(all[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...all.slice(1).map(line),
  ].join('\n');
}

export function formatOps(opsPerSecond) {
  return Math.round(opsPerSecond).toLocaleString('en-US');
}
