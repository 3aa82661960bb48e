import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

/**
 * Project config shared by every package: tests import workspace packages from their
 * TypeScript sources (the `@faceverify/source` export condition), so a change in core is
 * seen by adapter tests without a rebuild. `FACEVERIFY_TEST_PROJECT` lets a test prove that
 * its own project config was applied.
 */
export function faceverifyProject(
  name: string,
  test: NonNullable<UserWorkspaceConfig['test']> = {},
): UserWorkspaceConfig {
  const conditions = ['@faceverify/source'];
  return defineProject({
    resolve: { conditions: [...conditions, 'module', 'node', 'import', 'default'] },
    // Only 'node' here: Vitest hands these to Node as --conditions, and 'import' would make
    // require() of dual packages load their ESM build (Express 5's router breaks on it).
    ssr: { resolve: { conditions: [...conditions, 'node'] } },
    test: {
      name,
      include: ['test/**/*.test.ts'],
      testTimeout: 20_000,
      hookTimeout: 30_000,
      // A green run lists files, not every test slower than Vitest's 300 ms default: only
      // those that take seconds are worth a line.
      slowTestThreshold: 5_000,
      isolate: false,
      ...test,
      env: { FACEVERIFY_TEST_PROJECT: name, ...test.env },
    },
  });
}
