import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { returnPage } from '@faceverify/core';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { freePort, startVerificationAt, waitFor } from '@faceverify/test-support';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';

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
const folders: string[] = [];

/** The guide's server.mjs, listening on `port`, beside the example's node_modules. */
function writeGuideServer(port: number): string {
  const source = blockAfter('`server.mjs`:', 'js');
  // Beside the example's node_modules, which hold what the guide installs.
  const folder = mkdtempSync(
    join(ROOT, 'examples', 'express', 'node_modules', '.getting-started-'),
  );
  folders.push(folder);
  writeFileSync(join(folder, 'server.mjs'), source.replaceAll('3000', String(port)));
  return folder;
}

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
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
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
  expect(blockAfter('`server.mjs`:', 'js')).toContain('returnPage(confirmed, token)');
  const folder = writeGuideServer(port);
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

  const { token, verifyUrl } = await startVerificationAt(appUrl, 'alice');
  // A double click: the same session back (200), not a second one at the service.
  const again = await fetch(`${appUrl}/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userId: 'alice' }),
  });
  expect(again.status).toBe(200);
  expect(await again.json()).toEqual({ verifyUrl });
  expect(emulator.stats().sessions.pending).toBe(1);

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

/** Runs the guide's server.mjs with `env` until it exits: its exit code and output. */
async function runGuideServerToExit(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const folder = writeGuideServer(await freePort());
  const guide = spawn(process.execPath, ['server.mjs'], {
    cwd: folder,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (guide.exitCode === null && guide.signalCode === null) guide.kill();
  });
  let output = '';
  guide.stdout?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  guide.stderr?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  const [code] = (await once(guide, 'close')) as [number | null];
  return { code, output };
}

it("the guide's server.mjs without the emulator running: says so and exits 1, without a stack trace", async () => {
  const { code, output } = await runGuideServerToExit({
    // Nothing listens there: the emulator of step 2 is not running.
    FACEVERIFY_BASE_URL: `http://127.0.0.1:${await freePort()}`,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
  });
  expect(code, output).toBe(1);
  expect(output).toMatch(/^GET \/v1\/sessions\/:token failed without a response \(.*ECONNREFUSED/);
  expect(output).toContain('Is the emulator running? Start it as in step 2.');
  expect(output).not.toMatch(/^\s+at /m);
});

it("the guide's server.mjs with a base URL ending in /v1: prints the fix alone, exits 1, without a stack trace", async () => {
  const { code, output } = await runGuideServerToExit({
    FACEVERIFY_BASE_URL: `${emulator.url}/v1`,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
  });
  expect(code, output).toBe(1);
  // The one line createReceiver() throws, naming the address to set; the emulator is running,
  // so nothing sends the reader to start it.
  expect(output).toBe(
    `The base URL (baseUrl option or FACEVERIFY_BASE_URL) ends in /v1, but the client adds /v1 to every path itself (POST /v1/verify). Set FACEVERIFY_BASE_URL to ${emulator.url}, without /v1.\n`,
  );
});

it("the guide's server.mjs without FACEVERIFY_WEBHOOK_SECRET: names the variable, exits 1, without a stack trace", async () => {
  const { code, output } = await runGuideServerToExit({
    FACEVERIFY_BASE_URL: emulator.url,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_WEBHOOK_SECRET: '',
  });
  expect(code, output).toBe(1);
  expect(output).toMatch(/^No webhook signing secret configured\. Set FACEVERIFY_WEBHOOK_SECRET/);
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain('Is the emulator running?');
});
