import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { returnPage } from '@faceverify/core';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { freePort, startVerificationAt, waitFor } from '@faceverify/test-support';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

// docs/getting-started.md, step 3, as a newcomer runs it: its server.mjs, unchanged but for
// the port, in Node against the emulator, and its return page in real Chromium. No skip when
// Chromium is missing: launching fails and so does the test.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const GUIDE = readFileSync(join(ROOT, 'docs', 'getting-started.md'), 'utf8');

/** The fenced block of `language` that follows `marker` in the guide. */
function blockAfter(marker: string, language: string): string {
  const start = GUIDE.indexOf(marker);
  expect(start, `${marker} is in the guide`).toBeGreaterThanOrEqual(0);
  const open = GUIDE.indexOf(`\`\`\`${language}\n`, start) + language.length + 4;
  return GUIDE.slice(open, GUIDE.indexOf('\n```', open) + 1);
}

let browser: Browser;
let emulator: Emulator;
let app: ChildProcess | undefined;
let folder: string | undefined;

beforeAll(async () => {
  [browser, emulator] = await Promise.all([
    chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'],
    }),
    startEmulator({ seed: 'getting-started' }),
  ]);
}, 60_000);

afterAll(async () => {
  app?.kill();
  if (folder) rmSync(folder, { recursive: true, force: true });
  await browser?.close();
  await emulator?.close();
});

it('the pending return page the guide shows whole is the one returnPage sends', () => {
  const shown = blockAfter('The whole page, as your server sends it', 'html');
  const sent = returnPage({ status: 'pending' }, 'tok_…').replace(
    /const MESSAGES = \{.*?\};/,
    'const MESSAGES = {…};',
  );
  expect(shown).toBe(sent);
  // The token comes from the address: it cannot close the script element.
  const forged = returnPage({ status: 'pending' }, '</script><script>alert(1)</script>');
  expect(forged.match(/<\/script>/g)).toHaveLength(1);
  // Once known, the page has no script at all.
  expect(returnPage({ status: 'verified' }, 'tok_1')).not.toContain('<script>');
});

it("the guide's server.mjs: its return page shows pending, then the webhook's result without a reload", async () => {
  const port = await freePort();
  const source = blockAfter('`server.mjs`:', 'js');
  expect(source).toContain('returnPage(confirmed, token)');
  // Beside the example's node_modules, which hold what the guide installs.
  folder = mkdtempSync(join(ROOT, 'examples', 'express', 'node_modules', '.getting-started-'));
  writeFileSync(join(folder, 'server.mjs'), source.replaceAll('3000', String(port)));
  const appUrl = `http://127.0.0.1:${port}`;
  emulator.setCallbackUrl(`${appUrl}/webhooks/verification`);
  let output = '';
  app = spawn(process.execPath, ['server.mjs'], {
    cwd: folder,
    env: {
      ...process.env,
      FACEVERIFY_BASE_URL: emulator.url,
      FACEVERIFY_API_KEY: emulator.apiKey,
      FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  app.stdout?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  app.stderr?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  await waitFor(
    () =>
      fetch(`${appUrl}/verification/return`).then(
        () => true,
        () => false,
      ),
    `the app listens (output: ${output})`,
  );

  const { token } = await startVerificationAt(appUrl, 'alice');

  // The browser comes back before the result: the page says pending and waits for it.
  const page = await browser.newPage();
  await page.goto(`${appUrl}/verification/return?token=${token}`);
  expect(await page.locator('h1').textContent()).toBe('Verification pending');
  await emulator.completeSession(token, 'verified');
  await page.locator('h1', { hasText: 'Verification verified' }).waitFor();
  expect(await page.locator('#message').textContent()).toBe('Your identity is verified.');
  expect(await page.title()).toBe('Verification verified');
  await waitFor(() => output.includes('alice: verified (by webhook)'), 'the handler ran');

  // A token the app never started: 404, no page.
  const forged = await fetch(`${appUrl}/verification/return?token=tok_forged`);
  expect(forged.status).toBe(404);
  await page.close();
}, 60_000);
