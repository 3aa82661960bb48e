import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/index.js';
import { getSession, type Json } from './support/api.js';
import { closeServer, listenOnLoopback } from './support/servers.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

// No skip when Chromium is missing: launching fails and so does the suite.
const CHROMIUM = '/usr/bin/chromium';
const SECRET = 'whsec_browser_flow';

let browser: Browser;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
});

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** The integrator's app page the browser returns to; it records how it was reached. */
async function startReturnPage(): Promise<{
  url: string;
  visits: Array<{ url: string; headers: IncomingHttpHeaders }>;
}> {
  const visits: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const server: Server = createServer((request, response) => {
    visits.push({ url: request.url ?? '', headers: request.headers });
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Back in the app</title><h1>Back in the app</h1>');
  });
  const base = await listenOnLoopback(server);
  cleanups.push(() => closeServer(server));
  return { url: `${base}/verification/return`, visits };
}

async function startFlow(): Promise<{ emulator: Emulator; receiver: WebhookReceiver }> {
  const receiver = await startWebhookReceiver({ secret: SECRET });
  const emulator = await startEmulator({ signingSecret: SECRET, callbackUrl: receiver.url });
  cleanups.push(
    () => emulator.close(),
    () => receiver.close(),
  );
  return { emulator, receiver };
}

describe('hosted page in Chromium', () => {
  it('completes a session: redirect with token and status, and a signed webhook that verifies', async () => {
    const { emulator, receiver } = await startFlow();
    const app = await startReturnPage();
    const session = await emulator.createSession({
      externalUserId: 'browser-user-1',
      redirectUrl: app.url,
    });

    const page = await browser.newPage();
    cleanups.push(() => page.close());
    await page.goto(session.verify_url);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Verify your identity',
    );
    await expect(page.getByText('browser-user-1').isVisible()).resolves.toBe(true);

    await page.getByRole('button', { name: 'Verified', exact: true }).click();
    await page.waitForURL((url) => url.href.startsWith(app.url));

    const landed = new URL(page.url());
    expect(landed.searchParams.get('token')).toBe(session.token);
    expect(landed.searchParams.get('status')).toBe('verified');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Back in the app',
    );
    const returns = app.visits.filter((visit) => visit.url.startsWith('/verification/return'));
    expect(returns).toHaveLength(1);
    // The hosted page's address holds the token: it must not travel on as a Referer.
    expect(returns[0]?.headers.referer).toBeUndefined();

    const [webhook] = await receiver.waitFor(1);
    expect(webhook?.verified).toBe(true);
    expect(JSON.parse(webhook?.rawBody.toString('utf8') ?? '{}')).toMatchObject({
      event: 'verification.completed',
      status: 'verified',
      external_user_id: 'browser-user-1',
      livenessPassed: true,
    });
    const polled = await getSession(emulator, session.token);
    expect((polled.body.result as Json).status).toBe('verified');
  });

  it('shows a done message when the session has no redirect address', async () => {
    const { emulator, receiver } = await startFlow();
    const session = await emulator.createSession({ externalUserId: 'browser-user-2' });
    const page = await browser.newPage();
    cleanups.push(() => page.close());
    await page.goto(session.verify_url);
    await page.getByRole('button', { name: 'Fail: liveness' }).click();
    await page.getByRole('status').getByText('Done').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('(failed)');
    expect(await page.getByRole('button', { name: 'Verified', exact: true }).isVisible()).toBe(
      false,
    );
    expect(page.url()).toBe(session.verify_url);
    const [webhook] = await receiver.waitFor(1);
    expect(webhook?.verified).toBe(true);
    expect(JSON.parse(webhook?.rawBody.toString('utf8') ?? '{}')).toMatchObject({
      status: 'failed',
      livenessPassed: false,
    });
  });

  it('shows the service message when the session was completed meanwhile', async () => {
    const { emulator } = await startFlow();
    const session = await emulator.createSession({ externalUserId: 'browser-user-3' });
    const page = await browser.newPage();
    cleanups.push(() => page.close());
    await page.goto(session.verify_url);
    await emulator.completeSession(session.token, 'verified');
    await page.getByRole('button', { name: 'Fail: high risk' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/already completed/);
    expect(await page.getByRole('button', { name: 'Fail: high risk' }).isDisabled()).toBe(true);
  });

  it('renders a hostile external_user_id as text, running nothing', async () => {
    const { emulator } = await startFlow();
    const hostile = `<img src=x onerror="document.title='owned'"><script>document.title='owned'</script>`;
    const session = await emulator.createSession({ externalUserId: hostile });
    const page = await browser.newPage();
    cleanups.push(() => page.close());
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(session.verify_url);
    expect(await page.title()).not.toBe('owned');
    expect(await page.getByText(hostile).isVisible()).toBe(true);
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs).toEqual([]);
  });
});
