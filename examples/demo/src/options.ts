import { parseArgs } from 'node:util';

export const FRAMEWORK_NAMES = ['express', 'koa', 'hono'] as const;
export type FrameworkName = (typeof FRAMEWORK_NAMES)[number];

export interface DemoOptions {
  framework: FrameworkName;
  help: boolean;
}

export const USAGE = `usage: pnpm demo [-- --framework express|koa|hono]

Runs faceverify end to end against the local emulator: a session completed on the hosted
page, its signed webhook, a tampered webhook, a lost webhook recovered by polling, and a
burst past the rate limit. Exits 0 when all five steps pass.

  --framework <name>  the example receiver to run: express (default), koa or hono
  --help              show this help

Set CI=true to skip waiting for a person at the end.`;

function isFramework(value: string): value is FrameworkName {
  return FRAMEWORK_NAMES.some((name) => name === value);
}

/** Reads the command line; throws a message for the user on anything it does not know. */
export function parseOptions(argv: readonly string[]): DemoOptions {
  // `pnpm demo -- --framework koa` hands the script a literal `--`.
  const args = argv.filter((arg) => arg !== '--');
  const { values } = parseArgs({
    args,
    options: {
      framework: { type: 'string', default: 'express' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const framework = values.framework;
  if (!isFramework(framework)) {
    throw new Error(`unknown framework "${framework}": use ${FRAMEWORK_NAMES.join(', ')}`);
  }
  return { framework, help: values.help };
}

/**
 * Why the demo does not wait for a person at the end, or `undefined` when it does: a person
 * can answer only at a terminal, and CI says nobody is there.
 */
export function notWaitingBecause(
  env: Readonly<Record<string, string | undefined>>,
  stdinIsTTY: boolean,
): string | undefined {
  if (['true', '1'].includes((env.CI ?? '').toLowerCase())) return 'CI is set';
  return stdinIsTTY ? undefined : 'there is no terminal input';
}
