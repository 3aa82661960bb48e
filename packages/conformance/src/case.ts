/** One row of the conformance table, runnable by any test runner. */
export interface ConformanceCase {
  name: string;
  run: () => Promise<void>;
}
