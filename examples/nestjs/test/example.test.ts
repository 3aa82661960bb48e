import { createReceiver, MemoryStore } from '@faceverify/core';
import { fixturePayload, tamperedDelivery } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { eventStreamReader } from '@faceverify/test-support';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../src/server.js';

let emulator: Emulator;
let server: RunningServer | undefined;

beforeEach(async () => {
  emulator = await startEmulator({ seed: 'example-nestjs' });
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

function emulatorReceiver() {
  return createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
    store: new MemoryStore(),
    logger: false,
  });
}

const PENDING = 'event: state\ndata: {"state":"pending"}';
const COMPLETED = 'event: state\ndata: {"state":"completed","status":"verified"}';

it('configured from the emulator’s variables: a signed webhook reaches the Nest handler, the redirect is confirmed', async () => {
  vi.stubEnv('FACEVERIFY_BASE_URL', emulator.url);
  vi.stubEnv('FACEVERIFY_API_KEY', emulator.apiKey);
  vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', emulator.signingSecret);
  const running = await startServer({ port: 0 });
  server = running;
  emulator.setCallbackUrl(`${running.url}/webhooks/verification`);

  const { verifyUrl, token } = await startVerification(running.url, 'alice');
  expect(verifyUrl.startsWith(`${emulator.url}/verify/`)).toBe(true);
  const confirm = vi.spyOn(running.receiver, 'confirm');

  const completion = await emulator.completeSession(token, 'verified');
  await emulator.webhooksSettled();
  expect(emulator.stats().webhooks).toMatchObject({ delivered: 1, failed: 0 });
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

it('a webhook whose signature the emulator corrupted is refused and records nothing', async () => {
  const running = await startServer({ port: 0, receiver: emulatorReceiver() });
  server = running;
  emulator.setCallbackUrl(`${running.url}/webhooks/verification`);
  emulator.setFaults({ corruptWebhooks: { next: 1 } });

  const { token } = await startVerification(running.url, 'mallory');
  await emulator.completeSession(token, 'verified');
  await emulator.webhooksSettled();
  expect(emulator.stats().webhooks).toMatchObject({ corrupted: 1, delivered: 0, failed: 1 });
  expect(await recorded(running.url, 'mallory')).toBeUndefined();
});

it('a body changed after signing is 401 signature_invalid, though Nest parsed its JSON', async () => {
  const running = await startServer({ port: 0, receiver: emulatorReceiver() });
  server = running;
  const delivery = await tamperedDelivery(fixturePayload({ external_user_id: 'eve' }), {
    secret: emulator.signingSecret,
  });
  const response = await fetch(`${running.url}/webhooks/verification`, {
    method: 'POST',
    headers: delivery.headers,
    body: new Uint8Array(delivery.body),
  });
  expect(response.status).toBe(401);
  expect(await response.json()).toMatchObject({ error: 'signature_invalid' });
  expect(await recorded(running.url, 'eve')).toBeUndefined();
});

it('answers a bogus or unknown return token with a plain 404 page', async () => {
  const running = await startServer({ port: 0, receiver: emulatorReceiver() });
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
  const running = await startServer({ port: 0, receiver: emulatorReceiver() });
  server = running;
  emulator.setCallbackUrl(`${running.url}/webhooks/verification`);
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
