import type { TestClock } from '../src/testing/index.js';

/** Moves the clock on in steps until `work` settles; resolves or rejects as it does. */
export async function drive<T>(clock: TestClock, work: Promise<T>, stepMs = 1_000): Promise<T> {
  let settled = false;
  const done = work.finally(() => {
    settled = true;
  });
  done.catch(() => undefined);
  while (!settled) await clock.advance(stepMs);
  return done;
}

/**
 * Waits until `condition` holds, checking after each turn of the event loop. For conditions
 * reached by real I/O (a request arriving at a server); the test's own timeout bounds it.
 */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}
