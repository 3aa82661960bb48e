import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/index.js';
import { openSession } from './support/api.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

// No skip when Chromium is missing: launching fails and so does the suite.
const CHROMIUM = '/usr/bin/chromium';
const SECRET = 'whsec_inspector_page';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let browser: Browser;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function inspecting(): Promise<{
  emulator: Emulator;
  receiver: WebhookReceiver;
  page: Page;
}> {
  const receiver = await startWebhookReceiver({ secret: SECRET });
  const emulator = await startEmulator({ signingSecret: SECRET, callbackUrl: receiver.url });
  const page = await browser.newPage();
  cleanups.push(
    () => page.close(),
    () => emulator.close(),
    () => receiver.close(),
  );
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  cleanups.push(async () => expect(errors, 'script errors on the page').toEqual([]));
  await page.goto(`${emulator.url}/__emulator/inspector`);
  return { emulator, receiver, page };
}

/** The row of the session whose user is `user`, once the page shows it. */
const rowOf = (page: Page, user: string) =>
  page.locator('tr[data-session]', { has: page.locator('td.user', { hasText: user }) });

describe('the emulator inspector page, in Chromium', () => {
  it('shows a session completed through the API, with its webhook attempt, as it happens', async () => {
    const { emulator, receiver, page } = await inspecting();
    await page.locator('#empty').waitFor({ state: 'visible' });
    const { token } = await openSession(emulator, 'inspector-alice');
    const row = rowOf(page, 'inspector-alice');
    await row.locator('td.state.pending').waitFor();
    await emulator.completeSession(token, 'verified');
    await receiver.waitFor(1);
    await row.locator('td.state.verified').waitFor();
    const attempt = row.locator('li.attempt.answered');
    await attempt.waitFor();
    expect(await attempt.locator('.status').textContent()).toBe('200');
    expect(await attempt.locator('.answer').textContent()).toBe('ok');
    expect(await page.locator('#callback').textContent()).toBe(receiver.url);
    // The token is never on the page: the session is named by a hash prefix.
    expect(await page.content()).not.toContain(token);
    const screenshot = await page.screenshot({ fullPage: true });
    expect(screenshot.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(await row.textContent()).toContain('inspector-alice');
  });

  it('a resend from the page reaches the receiver, signed, and appears as a second attempt', async () => {
    const { emulator, receiver, page } = await inspecting();
    const { token } = await openSession(emulator, 'inspector-bob');
    await emulator.completeSession(token, 'verified');
    const [first] = await receiver.waitFor(1);
    const row = rowOf(page, 'inspector-bob');
    await row.locator('li.attempt').first().waitFor();
    await row.locator('button.resend').click();
    const [, second] = await receiver.waitFor(2);
    expect(second?.verified).toBe(true);
    expect(JSON.parse(second?.rawBody.toString() ?? '{}')).toMatchObject({
      external_user_id: 'inspector-bob',
      status: 'verified',
    });
    expect(second?.rawBody.equals(first?.rawBody ?? Buffer.alloc(0))).toBe(false);
    await expect.poll(() => row.locator('li.attempt').count()).toBe(2);
  });

  it('"Corrupt signature" applies to the next webhook only, and the page says so', async () => {
    const { emulator, receiver, page } = await inspecting();
    await page.locator('button[data-next="corrupt"]').click();
    await expect.poll(() => page.locator('#faults').textContent()).toContain('corruptWebhooks');
    const one = await openSession(emulator, 'inspector-carol');
    await emulator.completeSession(one.token, 'verified');
    const two = await openSession(emulator, 'inspector-dan');
    await emulator.completeSession(two.token, 'verified');
    const received = await receiver.waitFor(2);
    const verifiedOf = (user: string) =>
      received.find((webhook) => webhook.rawBody.toString().includes(user))?.verified;
    expect(verifiedOf('inspector-carol')).toBe(false);
    expect(verifiedOf('inspector-dan')).toBe(true);
    const corrupted = rowOf(page, 'inspector-carol').locator('li.attempt');
    await corrupted.getByText('signature corrupted').waitFor();
    expect(await corrupted.locator('.status').textContent()).toBe('401');
    expect(await corrupted.locator('.answer').textContent()).toBe('signature does not match');
    await expect.poll(() => page.locator('#faults').textContent()).toBe('none');
  });
});

describe('the inspector behind a control token', () => {
  it('serves the page without the token, and its data only with it', async () => {
    const controlToken = 'inspector-control-token-0123456789';
    const emulator = await startEmulator({ controlToken });
    cleanups.push(() => emulator.close());
    expect((await fetch(`${emulator.url}/__emulator/inspector`)).status).toBe(200);
    expect((await fetch(`${emulator.url}/__emulator/sessions`)).status).toBe(401);
    const authorized = await fetch(`${emulator.url}/__emulator/sessions`, {
      headers: { authorization: `Bearer ${controlToken}` },
    });
    expect(authorized.status).toBe(200);
    expect(await authorized.json()).toMatchObject({ sessions: [] });
  });

  it('refuses to resend a session that is not completed, or unknown', async () => {
    const emulator = await startEmulator();
    cleanups.push(() => emulator.close());
    await openSession(emulator, 'inspector-erin');
    const state = (await (await fetch(`${emulator.url}/__emulator/sessions`)).json()) as {
      sessions: Array<{ id: string }>;
    };
    const id = state.sessions[0]?.id ?? '';
    const resend = (target: string) =>
      fetch(`${emulator.url}/__emulator/sessions/${target}/resend`, { method: 'POST' });
    expect((await resend(id)).status).toBe(409);
    expect((await resend('000000000000')).status).toBe(404);
  });
});
