import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The one list of test projects. Root scripts run `vitest run` with this file as the config;
 * each entry is a package folder whose own `vitest.config.ts` applies to its tests.
 */
export default defineConfig({
  test: {
    projects: ['packages/*', 'examples/*'],
    // One worker per core. Vitest would otherwise pick one worker on a two-core machine and
    // run the suite file after file; more workers than cores made loaded machines time out.
    maxWorkers: availableParallelism(),
    // A green run shows the files and the counts; the console output of a test (a receiver's
    // log, a child process's stderr) is printed only when that test fails.
    silent: 'passed-only',
    reporters: process.env.CI
      ? [
          'default',
          ['json', { outputFile: process.env.FACEVERIFY_VITEST_REPORT ?? '.vitest-report.json' }],
        ]
      : ['default'],
  },
});
