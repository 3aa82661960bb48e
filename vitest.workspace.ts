import { defineConfig } from 'vitest/config';

/**
 * The one list of test projects. Root scripts run `vitest run` with this file as the config;
 * each entry is a package folder whose own `vitest.config.ts` applies to its tests.
 */
export default defineConfig({
  test: {
    projects: ['packages/*', 'examples/*'],
    reporters: process.env.CI
      ? [
          'default',
          ['json', { outputFile: process.env.FACEVERIFY_VITEST_REPORT ?? '.vitest-report.json' }],
        ]
      : ['default'],
  },
});
