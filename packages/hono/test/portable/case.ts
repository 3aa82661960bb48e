/**
 * Tests written as plain `{ name, run }` cases so the same checks run under Vitest on Node
 * and, bundled, on Bun, Deno and workerd (`pnpm test:runtimes`), where Vitest does not run.
 */
export interface PortableCase {
  name: string;
  run: () => void | Promise<void>;
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

export function checkEqual<T>(actual: T, expected: T, message: string): void {
  if (!Object.is(actual, expected)) {
    throw new Error(`${message}: expected ${String(expected)}, got ${String(actual)}`);
  }
}
