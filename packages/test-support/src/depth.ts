/**
 * How far the tests that search or load go. `standard` is `pnpm test` and CI, which must end
 * within minutes; `deep` is `pnpm test:deep` (FACEVERIFY_TEST_DEPTH=deep), run before every
 * release. A deep size runs the same test, assertions unchanged, on more input.
 */
export type TestDepth = 'standard' | 'deep';

/** The depth of this run. */
export const TEST_DEPTH: TestDepth =
  process.env.FACEVERIFY_TEST_DEPTH === 'deep' ? 'deep' : 'standard';

/** The size for this run's depth: `atDepth({ standard: 200, deep: 1_000 })`. */
export function atDepth<T>(sizes: Record<TestDepth, T>): T {
  return sizes[TEST_DEPTH];
}
