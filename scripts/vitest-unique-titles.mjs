// Setup file of every test project (vitest.project.ts): a test file in which two tests have
// the same full name (describe blocks and title, as Vitest reports them) fails before its
// tests run. A report of either could not say which one it is: a failure, a timing, a -t
// filter. By the file's first hook every test of it is collected, so this is one walk over
// names, with no reporter and nothing to keep.
import { beforeAll } from 'vitest';

/**
 * The full name of each test under `suite`, as Vitest reports it: `describe > … > title`.
 *
 * @param {Readonly<import('vitest').RunnerTestSuite | import('vitest').RunnerTestFile>} suite
 * @param {readonly string[]} path
 * @returns {string[]}
 */
function fullNames(suite, path = []) {
  return suite.tasks.flatMap((task) =>
    task.type === 'suite'
      ? fullNames(task, [...path, task.name])
      : [[...path, task.name].join(' > ')],
  );
}

// Registered on the file: it runs once, before the file's first test, not for each describe.
// The file is the hook's second argument; Vitest reads the first, the test context, as a
// destructuring pattern, and refuses a plain name there.
// biome-ignore lint/correctness/noEmptyPattern: the context is not used, the file after it is
beforeAll(({}, file) => {
  const seen = new Set();
  const repeated = new Set();
  for (const name of fullNames(file)) (seen.has(name) ? repeated : seen).add(name);
  if (repeated.size === 0) return;
  throw new Error(
    `${file.name}: ${repeated.size === 1 ? 'a test name is' : 'test names are'} used more than once, so a report cannot say which test it is about. Rename one of each (for it.each, put %s or $name in the title):\n${[...repeated].map((name) => `  ${name}`).join('\n')}`,
  );
});
