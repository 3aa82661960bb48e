import { ConfigurationError, createReceiver, MemoryStore } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import request from 'supertest';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../src/server.js';

let emulator: Emulator;
let server: RunningServer | undefined;

beforeEach(async () => {
  emulator = await startEmulator({ seed: 'example-express' });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await emulator.close();
  vi.unstubAllEnvs();
});

/** Starts a verification through the app, as its front end would. */
async function startVerification(appUrl: string, userId: string) {
  const response = await request(appUrl).post('/verifications').send({ userId });
  expect(response.status).toBe(201);
  const { verifyUrl } = response.body as { verifyUrl: string };
  // The hosted page's address ends with the session token.
  return { verifyUrl, token: new URL(verifyUrl).pathname.split('/').at(-1) ?? '' };
}

async function recorded(appUrl: string, userId: string): Promise<unknown> {
  const response = await request(appUrl).get(`/verifications/${userId}`);
  return response.status === 200 ? response.body : undefined;
}

it('configured from the emulator’s variables: starts a session, records its webhook, confirms the redirect', async () => {
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
  expect(emulator.stats().webhooks.delivered).toBe(1);
  expect(await recorded(running.url, 'alice')).toMatchObject({
    status: 'verified',
    source: 'webhook',
    livenessPassed: true,
  });

  expect(completion.redirect_url?.startsWith(`${running.url}/verification/return?`)).toBe(true);
  const page = await request(completion.redirect_url ?? '').get('');
  expect(page.status).toBe(200);
  expect(page.text).toContain('<h1>Verification verified</h1>');
  expect(confirm).toHaveBeenCalledWith(token);

  const health = await request(running.url).get('/health');
  expect(health.status).toBe(200);
  expect(health.body).toMatchObject({ status: 'ok', webhooks: { accepted: 1 } });
  // What a Prometheus scrape reads: the webhook answered, the result delivered.
  const scrape = await request(running.url).get('/metrics');
  expect(scrape.status).toBe(200);
  const scope = 'otel_scope_name="@faceverify/core"';
  const lines = scrape.text.split('\n');
  expect(lines).toContain(
    `faceverify_webhooks_total{http_response_status_code="200",faceverify_webhook_answer="delivered",${scope}} 1`,
  );
  expect(lines).toContain(
    `faceverify_deliveries_total{faceverify_delivery_source="webhook",${scope}} 1`,
  );
  expect(lines).toContain(
    `faceverify_store_records{faceverify_record_state="completed",${scope}} 1`,
  );
  // Nothing waits for a sweep: the backlog gauges read the store's due index.
  expect(lines).toContain(`faceverify_store_backlog{${scope}} 0`);
  expect(lines).toContain(`faceverify_store_oldest_due_age{${scope}} 0`);
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
  const response = await request(running.url).post('/verifications').send({});
  expect(response.status).toBe(400);
});

it('records a signed delivery sent with supertest as its exact bytes', async () => {
  const secret = emulator.signingSecret;
  const running = await startServer({
    port: 0,
    receiver: createReceiver({ secret, client: false, store: new MemoryStore() }),
  });
  server = running;
  const delivery = await signedDelivery(fixturePayload({ external_user_id: 'carol' }), {
    secret,
  });

  const response = await request(running.url)
    .post('/webhooks/verification')
    .set(delivery.headers)
    .send(delivery.text);

  expect(response.status).toBe(200);
  expect(await recorded(running.url, 'carol')).toMatchObject({ status: 'verified' });
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
    const page = await request(running.url).get('/verification/return').query({ token });
    expect(page.status, token).toBe(404);
    expect(page.headers['content-type'], token).toMatch(/^text\/plain/);
    expect(page.text, token).toBe('This verification is not known.');
  }
});

it('does not start with an API key the service refuses: the error names FACEVERIFY_API_KEY', async () => {
  const receiver = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: 'fv_test_not_the_emulators_key_0001', baseUrl: emulator.url },
    store: new MemoryStore(),
    logger: false,
  });
  const started = startServer({ port: 0, receiver });
  await expect(started).rejects.toThrow(ConfigurationError);
  await expect(started).rejects.toThrow(/refused FACEVERIFY_API_KEY \(401\)/);
});
