import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/faceverify.js', import.meta.url));
const run = (args: string[]) =>
  promisify(execFile)(process.execPath, [BIN, ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

it('the installed command prints its help and exits 0', async () => {
  const { code, stdout } = await run(['--help']);
  expect(code).toBe(0);
  expect(stdout).toContain('usage: faceverify <command> [options]');
});

it('the installed command exits 2 on an unknown command', async () => {
  const { code, stderr } = await run(['frobnicate']);
  expect(code).toBe(2);
  expect(stderr).toContain('unknown command "frobnicate"');
});
