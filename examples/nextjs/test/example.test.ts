import { fixturePayload, tamperedDelivery } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { eventStreamReader, freePort } from '@faceverify/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp, type RunningNext, startApp } from './next-server.js';

let emulator: Emulator;
let app: RunningNext;

beforeAll(async () => {
  const buildMs = await buildApp();
  console.log(`next build took ${(buildMs / 1000).toFixed(1)} s`);
  emulator = await startEmulator({ seed: 'example-nextjs' });
  app = await startApp({
    FACEVERIFY_BASE_URL: emulator.url,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
  });
  emulator.setCallbackUrl(`${app.url}/api/webhooks/verification`);
}, 600_000);

afterAll(async () => {
  await app?.stop();
  await emulator?.close();
});

/** Starts a verification through the app's route, as its front end would. */
async function startVerification(userId: string) {
  const response = await fetch(`${app.url}/api/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userId }),
  });
  expect(response.status, app.output()).toBe(201);
  const { verifyUrl } = (await response.json()) as { verifyUrl: string };
  // The hosted page's address ends with the session token.
  return { verifyUrl, token: new URL(verifyUrl).pathname.split('/').at(-1) ?? '' };
}

async function recorded(userId: string): Promise<unknown> {
  const response = await fetch(`${app.url}/api/verifications/${userId}`);
  return response.status === 200 ? response.json() : undefined;
}

const PENDING = 'event: state\ndata: {"state":"pending"}';
const COMPLETED = 'event: state\ndata: {"state":"completed","status":"verified"}';

it('a completed session’s signed webhook reaches the route handler, and the return page shows the confirmed status', async () => {
  const { verifyUrl, token } = await startVerification('alice');
  expect(verifyUrl.startsWith(`${emulator.url}/verify/`)).toBe(true);

  const completion = await emulator.completeSession(token, 'verified');
  await emulator.webhooksSettled();
  expect(emulator.stats().webhooks, app.output()).toMatchObject({ delivered: 1, failed: 0 });
  expect(await recorded('alice')).toMatchObject({
    status: 'verified',
    source: 'webhook',
    livenessPassed: true,
  });

  expect(completion.redirect_url?.startsWith(`${app.url}/verification/return?`)).toBe(true);
  const page = await fetch(completion.redirect_url ?? '');
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('<h1>Verification verified</h1>');
  // Only a pending page listens for the result, in the live region it updates.
  expect(html).not.toContain('aria-live');

  const health = await fetch(`${app.url}/api/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ status: 'ok', store: { reachable: true } });
});

it('a failed session is confirmed as failed on the return page', async () => {
  const { token } = await startVerification('bob');
  const completion = await emulator.completeSession(token, 'liveness_failed');
  await emulator.webhooksSettled();
  expect(await recorded('bob')).toMatchObject({ status: 'failed', source: 'webhook' });
  const page = await fetch(completion.redirect_url ?? '');
  expect(await page.text()).toContain('<h1>Verification failed</h1>');
});

it('a body changed after signing is 401 signature_invalid and records nothing', async () => {
  const delivery = await tamperedDelivery(fixturePayload({ external_user_id: 'eve' }), {
    secret: emulator.signingSecret,
  });
  const response = await fetch(`${app.url}/api/webhooks/verification`, {
    method: 'POST',
    headers: delivery.headers,
    body: new Uint8Array(delivery.body),
  });
  expect(response.status).toBe(401);
  expect(await response.json()).toMatchObject({ error: 'signature_invalid' });
  expect(await recorded('eve')).toBeUndefined();
});

it('a bogus, unknown or missing return token is a 404 page that says only that', async () => {
  const tokens = ['bogus', 'vs_0123456789abcdef0123456789abcdef', '<script>'];
  const addresses = [
    ...tokens.map((token) => `/verification/return?token=${encodeURIComponent(token)}`),
    '/verification/return',
  ];
  for (const address of addresses) {
    const page = await fetch(`${app.url}${address}`);
    expect(page.status, `${address}\n${app.output()}`).toBe(404);
    expect(await page.text(), address).toContain('This verification is not known.');
  }
});

it('while pending, the return page listens, and its events end with the result', async () => {
  const { token } = await startVerification('dave');
  const page = await fetch(`${app.url}/verification/return?token=${token}`);
  const pending = await page.text();
  expect(pending).toContain('<h1>Verification pending</h1>');
  expect(pending).toContain('aria-live="polite"');

  const events = eventStreamReader(await fetch(`${app.url}/verification/events/${token}`));
  expect(events.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(await events.until(PENDING), app.output()).toContain(PENDING);
  await emulator.completeSession(token, 'verified');
  expect(await events.until(COMPLETED), app.output()).toContain(COMPLETED);
});

// Next.js would log a failed register() and answer every request 500: instrumentation.ts
// stops the server instead, with the message alone.
it.each([
  ['an API key the service refuses', 'refused FACEVERIFY_API_KEY (401)'],
  ['the emulator not running', 'GET /v1/sessions/:token failed without a response'],
])('next start with %s: instrumentation.ts stops it, saying so', async (setup, message) => {
  const down = setup === 'the emulator not running';
  const outcome = await startApp({
    FACEVERIFY_BASE_URL: down ? `http://127.0.0.1:${await freePort()}` : emulator.url,
    FACEVERIFY_API_KEY: down ? emulator.apiKey : 'fv_test_not_the_emulators_key_0001',
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
  }).then(
    async (started) => {
      await started.stop();
      return `next start answered on ${started.url}:\n${started.output()}`;
    },
    (error: Error) => error.message,
  );
  expect(outcome).toMatch(/^next start exited with 1:/);
  expect(outcome).toContain(message);
  expect(outcome).toContain('Is the emulator running?');
  expect(outcome).not.toMatch(/^\s+at /m);
});
