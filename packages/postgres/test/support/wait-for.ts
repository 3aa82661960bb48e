/**
 * Polls `condition` until it holds. No deadline of its own: the test's timeout bounds the
 * wait, so a condition that never holds fails there, never by a race against a shorter clock.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}
