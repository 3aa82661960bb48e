import { parseArgs } from 'node:util';
import { simulate } from './simulate.js';

const HELP = `pnpm simulate [--seed N] [--seeds COUNT] [--from N] [--trace]

  --seed N       runs the one seed N and prints its schedule (and its trace with --trace)
  --seeds COUNT  runs COUNT seeds from --from (default 1); prints each failing seed
  --trace        prints what happened, in order, for a failing (or the one) seed`;

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    seeds: { type: 'string' },
    from: { type: 'string', default: '1' },
    trace: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(HELP);
  process.exit(0);
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
  if (broken || one) {
    console.log(`seed ${seed}: ${broken ? 'FAILED' : 'passed'}`);
    for (const violation of report.violations) console.log(`  ✖ ${violation}`);
    console.log('  schedule:');
    for (const line of report.schedule) console.log(`    ${line}`);
    if (values.trace) {
      console.log('  trace:');
      for (const line of report.trace) console.log(`    ${line}`);
    }
    console.log(`  replay: pnpm simulate --seed ${seed} --trace`);
  }
  const { sessions, delivered, webhooks, instances } = report.stats;
  if (!one) {
    console.log(
      `seed ${seed}: ${broken ? 'FAILED' : 'ok'} (${instances} instances, ${sessions} sessions, ${webhooks} webhooks, ${delivered} deliveries)`,
    );
  }
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`${seeds.length - failed} of ${seeds.length} seeds passed in ${seconds} s`);
process.exit(failed > 0 ? 1 : 0);
