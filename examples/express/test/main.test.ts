import { fileURLToPath } from 'node:url';
import { freePort, runExampleMain } from '@faceverify/test-support';
import { expect, it } from 'vitest';

const EXAMPLE_DIR = fileURLToPath(new URL('..', import.meta.url));

it('pnpm start without the emulator running: says what failed and how to start it, exits 1 without a stack trace', async () => {
  const port = await freePort();
  const { code, output } = await runExampleMain(EXAMPLE_DIR, {
    PORT: String(port),
    // Nothing listens there: the emulator is not running.
    FACEVERIFY_BASE_URL: `http://127.0.0.1:${await freePort()}`,
    FACEVERIFY_API_KEY: 'fv_test_main_without_the_emulator_01',
    FACEVERIFY_WEBHOOK_SECRET: 'whsec_main_without_the_emulator_01',
  });
  expect(code, output).toBe(1);
  expect(output).toMatch(/^GET \/v1\/sessions\/:token failed without a response \(.*ECONNREFUSED/);
  expect(output).toContain('Is the emulator running? Start it in another terminal with');
  expect(output).toContain(
    `npx faceverify-emulator --callback-url http://127.0.0.1:${port}/webhooks/verification`,
  );
  expect(output).not.toMatch(/^\s+at /m);
});
