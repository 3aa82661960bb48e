import { createReceiver, MemoryStore } from '@faceverify/core';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { eventStreamReader } from '@faceverify/test-support';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../src/server.js';

let emulator: Emulator;
let server: RunningServer | undefined;

beforeEach(async () => {
  emulator = await startEmulator({ seed: 'example-hono-node' });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await emulator.close();
  vi.unstubAllEnvs();
});

/** Starts a verification through the app, as its front end would. */
async function startVerification(appUrl: string, userId: string) {
  const response = await fetch(`${appUrl}/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userId }),
  });
  expect(response.status).toBe(201);
  const { verifyUrl } = (await response.json()) as { verifyUrl: string };
  // The hosted page's address ends with the session token.
  return { verifyUrl, token: new URL(verifyUrl).pathname.split('/').at(-1) ?? '' };
}

async function recorded(appUrl: string, userId: string): Promise<unknown> {
  const response = await fetch(`${appUrl}/verifications/${userId}`);
  return response.status === 200 ? response.json() : undefined;
}

/** The app configured from the emulator's variables, as in production, and the emulator's webhooks sent to it. */
async function startFromEmulatorVariables(): Promise<RunningServer> {
  vi.stubEnv('FACEVERIFY_BASE_URL', emulator.url);
  vi.stubEnv('FACEVERIFY_API_KEY', emulator.apiKey);
  vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', emulator.signingSecret);
  const running = await startServer({ port: 0 });
  server = running;
  emulator.setCallbackUrl(`${running.url}/webhooks/verification`);
  return running;
}

const PENDING = 'event: state\ndata: {"state":"pending"}';
const COMPLETED = 'event: state\ndata: {"state":"completed","status":"verified"}';

it('configured from the emulator’s variables: starts a session, records its webhook, confirms the redirect', async () => {
  const running = await startFromEmulatorVariables();

  const { verifyUrl, token } = await startVerification(running.url, 'alice');
  expect(verifyUrl.startsWith(`${emulator.url}/verify/`)).toBe(true);
  const confirm = vi.spyOn(running.receiver, 'confirm');

  const completion = await emulator.completeSession(token, 'verified');
  await emulator.webhooksSettled();
  expect(emulator.stats().webhooks.delivered).toBe(1);
  expect(await recorded(running.url, 'alice')).toMatchObject({
    status: 'verified',
    source: 'webhook',
    livenessPassed: true,
  });

  expect(completion.redirect_url?.startsWith(`${running.url}/verification/return?`)).toBe(true);
  const page = await fetch(completion.redirect_url ?? '');
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('<h1>Verification verified</h1>');
  expect(html).not.toContain('EventSource');
  expect(confirm).toHaveBeenCalledWith(token);

  const health = await fetch(`${running.url}/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ status: 'ok', webhooks: { accepted: 1 } });
});

it('records a result whose webhook never arrives, by polling', async () => {
  const receiver = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
    store: new MemoryStore(),
    pollScheduleMs: [100],
    sweepIntervalMs: 50,
  });
  const running = await startServer({ port: 0, receiver });
  server = running;
  emulator.setCallbackUrl(`${running.url}/webhooks/verification`);
  emulator.setFaults({ dropWebhooks: { next: 1 } });

  const { token } = await startVerification(running.url, 'bob');
  await emulator.completeSession(token, 'liveness_failed');
  await emulator.webhooksSettled();
  expect(emulator.stats().webhooks).toMatchObject({ dropped: 1, delivered: 0 });

  await vi.waitFor(
    async () => {
      expect(await recorded(running.url, 'bob')).toMatchObject({
        status: 'failed',
        source: 'poll',
      });
    },
    { timeout: 5_000, interval: 50 },
  );
});

it('refuses a start request without a user id', async () => {
  const running = await startServer({
    port: 0,
    receiver: createReceiver({ secret: emulator.signingSecret, client: false }),
  });
  server = running;
  const response = await fetch(`${running.url}/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(400);
});

it('answers a bogus or unknown return token with a plain 404 page', async () => {
  const receiver = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
    store: new MemoryStore(),
  });
  const running = await startServer({ port: 0, receiver });
  server = running;
  for (const token of ['bogus', 'vs_0123456789abcdef0123456789abcdef', '<script>']) {
    const page = await fetch(
      `${running.url}/verification/return?token=${encodeURIComponent(token)}`,
    );
    expect(page.status, token).toBe(404);
    expect(page.headers.get('content-type'), token).toMatch(/^text\/plain/);
    expect(await page.text(), token).toBe('This verification is not known.');
  }
});

it('while pending, the return page listens, and its events end with the result', async () => {
  const running = await startFromEmulatorVariables();
  const { token } = await startVerification(running.url, 'dave');

  const page = await fetch(`${running.url}/verification/return?token=${token}`);
  const pending = await page.text();
  expect(pending).toContain('<h1>Verification pending</h1>');
  expect(pending).toContain('new EventSource(');

  const events = eventStreamReader(await fetch(`${running.url}/verification/events/${token}`));
  expect(events.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(await events.until(PENDING)).toContain(PENDING);
  await emulator.completeSession(token, 'verified');
  expect(await events.until(COMPLETED)).toContain(COMPLETED);
});
