// Runs portable test cases inside whichever runtime the bundle was loaded in. Bundled into
// every runtime's entry, so it must use only what Node, Bun, Deno and workerd all share:
// no node: imports, no process, no timers outside a running case.

/** Per-case limit, the same as the Vitest projects' testTimeout. */
const CASE_TIMEOUT_MS = 20_000;

function isCase(value) {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof value.name === 'string' &&
    typeof value.run === 'function'
  );
}

/**
 * The case arrays a `*.cases.ts` module exports: every export whose value is a non-empty
 * array of `{ name, run }`. Other exports (helpers, types erased at build time) are ignored.
 */
export function caseArrays(moduleExports) {
  return Object.entries(moduleExports).filter(
    ([, value]) => Array.isArray(value) && value.length > 0 && value.every(isCase),
  );
}

function describeError(error) {
  if (error instanceof Error) {
    const stack = typeof error.stack === 'string' ? error.stack : '';
    // Engines differ on whether the stack repeats the message; keep one copy of it.
    const frames = stack
      .split('\n')
      .filter((line) => /^\s+at\s/.test(line))
      .slice(0, 4);
    return [`${error.name}: ${error.message}`, ...frames.map((line) => line.trim())].join('\n');
  }
  return String(error);
}

async function runOne(testCase) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${CASE_TIMEOUT_MS} ms`)),
      CASE_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([Promise.resolve().then(() => testCase.run()), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs every case of every suite in order, one at a time (cases may share module state),
 * and reports each result through `report` as soon as it is known.
 *
 * @param {Array<{ file: string, label: string, exports: Record<string, unknown> }>} suites
 * @param {(line: string) => void} report
 * @returns {Promise<{ passed: number, failed: number, failures: Array<{ name: string, error: string }> }>}
 */
export async function runSuites(suites, report) {
  let passed = 0;
  const failures = [];
  for (const suite of suites) {
    const arrays = caseArrays(suite.exports);
    if (arrays.length === 0) {
      // A case file that contributes nothing is almost always a mistake (a factory exported
      // instead of an array, a renamed export); failing keeps tests from vanishing silently.
      const name = `${suite.label} › (module)`;
      const error = `${suite.file} exports no array of { name, run } cases`;
      failures.push({ name, error });
      report(`✗ ${name}\n    ${error}`);
      continue;
    }
    for (const [, cases] of arrays) {
      for (const testCase of cases) {
        const name = `${suite.label} › ${testCase.name}`;
        const started = Date.now();
        try {
          await runOne(testCase);
          passed += 1;
          report(`✓ ${name} (${Date.now() - started} ms)`);
        } catch (error) {
          const text = describeError(error);
          failures.push({ name, error: text });
          report(`✗ ${name} (${Date.now() - started} ms)\n    ${text.replaceAll('\n', '\n    ')}`);
        }
      }
    }
  }
  report(`${passed} passed, ${failures.length} failed`);
  return { passed, failed: failures.length, failures };
}
