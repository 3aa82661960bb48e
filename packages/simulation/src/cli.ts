import { parseArgs } from 'node:util';
import { REAL_STORE_REGRESSIONS, REGRESSIONS, TWO_STEP_ORDER } from './regressions.js';
import type { Schedule } from './schedule.js';
import { simulate } from './simulate.js';

const HELP = `pnpm simulate [--seed N] [--seeds COUNT] [--from N] [--schedule NAME] [--trace]

  --seed N         runs the one seed N and prints its schedule (and its trace with --trace)
  --seeds COUNT    runs COUNT seeds from --from (default 1); prints each failing seed
  --schedule NAME  replays the hand-written schedule of regressions.ts whose name contains NAME
                   (--schedule list names them)
  --trace          prints what happened, in order, for a failing (or the one) run`;

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    seeds: { type: 'string' },
    from: { type: 'string', default: '1' },
    schedule: { type: 'string' },
    trace: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(HELP);
  process.exit(0);
}

/** Prints what a run came to: its violations, schedule and (with --trace) its trace. */
function print(report: Awaited<ReturnType<typeof simulate>>, title: string, replay: string) {
  const broken = report.violations.length > 0;
  console.log(`${title}: ${broken ? 'FAILED' : 'passed'}`);
  for (const violation of report.violations) console.log(`  ✖ ${violation}`);
  console.log('  schedule:');
  for (const line of report.schedule) console.log(`    ${line}`);
  if (values.trace) {
    console.log('  trace:');
    for (const line of report.trace) console.log(`    ${line}`);
  }
  console.log(`  replay: ${replay}`);
}

if (values.schedule !== undefined) {
  const named: Array<[string, Schedule, string]> = [
    ...Object.entries(REGRESSIONS).map(([name, s]): [string, Schedule, string] => [name, s, '']),
    ...Object.entries(TWO_STEP_ORDER).map(([name, s]): [string, Schedule, string] => [
      name,
      s,
      ' (the order the docs gave before: expected to fail)',
    ]),
  ];
  const wanted = values.schedule.toLowerCase();
  const found = named.filter(([name]) => name.toLowerCase().includes(wanted));
  if (wanted === 'list' || found.length !== 1) {
    if (wanted !== 'list') {
      console.log(
        found.length === 0
          ? `No schedule's name contains "${values.schedule}".`
          : `"${values.schedule}" names ${found.length} schedules; be more precise.`,
      );
    }
    for (const [name, , note] of named) console.log(`  ${name}${note}`);
    for (const name of Object.keys(REAL_STORE_REGRESSIONS)) {
      console.log(`  ${name} (real servers only: packages/simulation/test/real-stores.test.ts)`);
    }
    process.exit(wanted === 'list' ? 0 : 1);
  }
  const [name, schedule, note] = found[0]!;
  const report = await simulate(0, schedule);
  print(report, `${name}${note}`, `pnpm simulate --schedule "${name}" --trace`);
  process.exit(report.violations.length > 0 ? 1 : 0);
}

const seeds =
  values.seed === undefined
    ? Array.from({ length: Number(values.seeds ?? 20) }, (_, index) => Number(values.from) + index)
    : [Number(values.seed)];
const one = values.seed !== undefined;
let failed = 0;
const started = performance.now();
for (const seed of seeds) {
  const report = await simulate(seed);
  const broken = report.violations.length > 0;
  if (broken) failed += 1;
  if (broken || one) print(report, `seed ${seed}`, `pnpm simulate --seed ${seed} --trace`);
  const { sessions, delivered, webhooks, instances, superseded } = report.stats;
  if (!one) {
    console.log(
      `seed ${seed}: ${broken ? 'FAILED' : 'ok'} (${instances} instances, ${sessions} sessions, ${webhooks} webhooks, ${delivered} deliveries, ${superseded} superseded)`,
    );
  }
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`${seeds.length - failed} of ${seeds.length} seeds passed in ${seconds} s`);
process.exit(failed > 0 ? 1 : 0);
