import { availableParallelism } from 'node:os';
import { stripVTControlCharacters } from 'node:util';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Output sent to a file or a pipe (CI logs, `pnpm test > log`) gets no colour escapes:
// Vitest's colours (tinyrainbow 3) are on unless NO_COLOR is set, terminal or not, and some
// were made when Vitest loaded, before this file. So what this process writes to a stream
// that is not a terminal is stripped of them, and NO_COLOR tells the workers and the child
// processes tests start. Setting FORCE_COLOR (or NO_COLOR) yourself leaves all as it is.
if (!('FORCE_COLOR' in process.env) && !('NO_COLOR' in process.env)) {
  if (!process.stdout.isTTY) process.env.NO_COLOR = '1';
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.isTTY) continue;
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(
        typeof chunk === 'string' ? stripVTControlCharacters(chunk) : chunk,
        ...rest,
      )) as typeof stream.write;
  }
}

// Files that take many seconds each, longest first (as CI's run measured them). Vitest orders
// files project by project, so on a fresh clone (no timing cache) it would start the
// reliability project's crash test, and the simulation's two, last, and the whole run would then
// wait on them alone; started first, they run beside the rest.
const LONGEST = [
  'packages/reliability/test/postgres-crash.test.ts',
  'examples/demo/test/demo.test.ts',
  'packages/reliability/test/redis-instances.test.ts',
  'packages/reliability/test/postgres-connection-drops.test.ts',
  'packages/reliability/test/soak.test.ts',
  'packages/simulation/test/simulation.test.ts',
  'packages/reliability/test/postgres-soak.test.ts',
  'packages/fuzz/test/http-surface.fuzz.test.ts',
  'examples/recipes/test/recipes.test.ts',
  'packages/simulation/test/real-stores.test.ts',
  'packages/postgres/test/round-trips.test.ts',
  'packages/reliability/test/process-restart.test.ts',
  // Starts a RabbitMQ node twice (~10 s each).
  'packages/sinks/test/rabbitmq.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST.findIndex((path) => file.moduleId.endsWith(path));
      return index < 0 ? LONGEST.length : index;
    };
    // Array.prototype.sort is stable: the rest keep Vitest's own order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * The one list of test projects. Root scripts run `vitest run` with this file as the config;
 * each entry is a package folder whose own `vitest.config.ts` applies to its tests.
 */
export default defineConfig({
  test: {
    projects: ['packages/*', 'examples/*'],
    // Child processes run the packages' dist/: rebuilt first when a source is newer.
    globalSetup: ['scripts/vitest-fresh-build.mjs'],
    // One worker per core. Vitest would otherwise pick one worker on a two-core machine and
    // run the suite file after file; more workers than cores made loaded machines time out.
    maxWorkers: availableParallelism(),
    // A green run shows the files and the counts; the console output of a test (a receiver's
    // log, a child process's stderr) is printed only when that test fails.
    silent: 'passed-only',
    sequence: { sequencer: LongestFirst },
    reporters: process.env.CI
      ? [
          'default',
          ['json', { outputFile: process.env.FACEVERIFY_VITEST_REPORT ?? '.vitest-report.json' }],
        ]
      : ['default'],
  },
});
