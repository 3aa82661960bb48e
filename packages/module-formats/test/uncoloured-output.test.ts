import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify, stripVTControlCharacters } from 'node:util';
import { expect, it } from 'vitest';

// `pnpm test > log` and CI logs: Vitest's colours (tinyrainbow 3) are on whether or not the
// output is a terminal; vitest.workspace.ts turns them off where it is not, unless asked.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ESCAPE = '\u001b[';

/** One small test file through the root config, its output in a pipe (not a terminal). */
async function runRedirected(env: Record<string, string>): Promise<string> {
  const inherited = Object.entries(process.env).filter(
    ([name]) => !/^(VITEST|NO_COLOR$|FORCE_COLOR$|FORCE_TTY$|CI$)/.test(name),
  );
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--config',
      'vitest.workspace.ts',
      '--project',
      'module-formats',
      'packages/module-formats/test/workspace-graph.test.ts',
    ],
    { cwd: ROOT, env: { ...Object.fromEntries(inherited), TERM: 'xterm-256color', ...env } },
  );
  const output = stdout + stderr;
  expect(stripVTControlCharacters(output)).toMatch(/Tests +1 passed/);
  return output;
}

it('a test run writes no colour escapes to a file or pipe, and keeps them with FORCE_COLOR', async () => {
  const [plain, forced] = await Promise.all([
    runRedirected({}),
    runRedirected({ FORCE_COLOR: '1' }),
  ]);
  expect(plain).not.toContain(ESCAPE);
  expect(forced).toContain(ESCAPE);
}, 60_000);
