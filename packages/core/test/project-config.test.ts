import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect, it, onTestFinished } from 'vitest';

it('runs under the core project config from the workspace list', () => {
  expect(process.env.FACEVERIFY_TEST_PROJECT).toBe('core');
});

it('fails a test file in which two tests have the same full name, naming them', async () => {
  const fixture = fileURLToPath(new URL('./fixtures/repeated-titles/', import.meta.url));
  const vitest = fileURLToPath(new URL('../../../node_modules/vitest/vitest.mjs', import.meta.url));
  const child = spawn(
    process.execPath,
    [vitest, 'run', '--root', fixture, '--config', `${fixture}vitest.config.mjs`],
    { env: { ...process.env, NO_COLOR: '1', CI: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const [code] = (await once(child, 'close')) as [number | null];
  expect(code, output).toBe(1);
  expect(output).toContain('repeated.fixture.ts: test names are used more than once');
  expect(output).toContain('\n  a describe block > a title\n  one title for each case\n');
  expect(output).toMatch(/✓ .*unique\.fixture\.ts \(4 tests\)/);
  expect(output).toMatch(/Test Files {2}1 failed \| 1 passed \(2\)/);
});
