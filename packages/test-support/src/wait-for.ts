// After this long, the wait says what it is waiting for: a diagnostic, never a failure.
const SAY_AFTER_MS = 30_000;

/**
 * Polls `condition` until it holds. It has no deadline of its own: how long a condition takes
 * depends on the machine's load, so the test's own timeout bounds the wait, and a condition
 * that never holds fails the test there, never by a race against a shorter clock.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  message: string,
): Promise<void> {
  const sayAt = Date.now() + SAY_AFTER_MS;
  let said = false;
  while (!(await condition())) {
    if (!said && Date.now() > sayAt) {
      said = true;
      console.warn(`still waiting for: ${message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
