import { fileURLToPath } from 'node:url';
import { configDefaults, defineProject, type UserWorkspaceConfig } from 'vitest/config';

/**
 * Files named `*.deep.test.ts` run only in `pnpm test:deep` (FACEVERIFY_TEST_DEPTH=deep):
 * tests that take too long for CI whatever their size (a real Sentinel failover).
 */
const DEEP_ONLY = process.env.FACEVERIFY_TEST_DEPTH === 'deep' ? [] : ['test/**/*.deep.test.ts'];

// A file of a workspace package's or example's build output (dist/).
const BUILT_WORKSPACE_FILE = /\/(?:packages|examples)\/[^/]+\/dist\//;

// Fails a test file in which two tests have the same full name.
const UNIQUE_TITLES = fileURLToPath(new URL('./scripts/vitest-unique-titles.mjs', import.meta.url));

// With FACEVERIFY_TEST_BUSY_POOL (`pnpm test:deep`): libuv's thread pool held before each test.
const BUSY_POOL = process.env.FACEVERIFY_TEST_BUSY_POOL
  ? [fileURLToPath(new URL('./scripts/vitest-busy-thread-pool.mjs', import.meta.url))]
  : [];

/**
 * Project config shared by every package. A test imports the other workspace packages as an
 * app does, from their built dist/ (rebuilt first when a source is newer, see
 * scripts/vitest-fresh-build.mjs): what is published is what is tested, and Node loads those
 * bundles itself, as it loads `node_modules`, instead of Vite transforming every source file
 * of core (and then every bundle) again in each worker. `pnpm test:watch` sets FACEVERIFY_TEST_SOURCES, the
 * `@faceverify/source` export condition, so a change in core is seen by adapter tests without
 * a rebuild. `FACEVERIFY_TEST_PROJECT` lets a test prove that its own project config was
 * applied. Every project fails a test file whose tests repeat a full name
 * (scripts/vitest-unique-titles.mjs).
 */
export function faceverifyProject(
  name: string,
  test: NonNullable<UserWorkspaceConfig['test']> = {},
): UserWorkspaceConfig {
  const conditions = process.env.FACEVERIFY_TEST_SOURCES ? ['@faceverify/source'] : [];
  return defineProject({
    resolve: { conditions: [...conditions, 'module', 'node', 'import', 'default'] },
    // Only 'node' here: Vitest hands these to Node as --conditions, and 'import' would make
    // require() of dual packages load their ESM build (Express 5's router breaks on it).
    ssr: { resolve: { conditions: [...conditions, 'node'] } },
    test: {
      name,
      include: ['test/**/*.test.ts'],
      exclude: [...configDefaults.exclude, ...DEEP_ONLY],
      testTimeout: 20_000,
      hookTimeout: 30_000,
      // A green run lists files, not every test slower than Vitest's 300 ms default: only
      // those that take seconds are worth a line.
      slowTestThreshold: 5_000,
      isolate: false,
      // Built packages and examples are plain JavaScript: Vite's module runner would only
      // transform each bundle again in every worker.
      server: { deps: { external: [BUILT_WORKSPACE_FILE] } },
      ...test,
      setupFiles: [UNIQUE_TITLES, ...BUSY_POOL].concat(test.setupFiles ?? []),
      env: { FACEVERIFY_TEST_PROJECT: name, ...test.env },
    },
  });
}
