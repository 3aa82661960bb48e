/** Polls `condition` until it holds, or fails with `message` after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  message: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting: ${message}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
