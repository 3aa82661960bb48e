import { fileURLToPath } from 'node:url';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import {
  eventStreamReader,
  freePort,
  type PostgresServer,
  runExampleMain,
  startPostgresServer,
} from '@faceverify/test-support';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../src/server.js';

let postgres: PostgresServer;
let databaseUrl: string;
let emulator: Emulator;
let server: RunningServer | undefined;

beforeAll(async () => {
  postgres = await startPostgresServer();
  databaseUrl = postgres.url(await postgres.createDatabase('example'));
});

afterAll(async () => {
  await postgres?.stop();
});

beforeEach(async () => {
  emulator = await startEmulator({ seed: 'example-express-postgres' });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await emulator.close();
  vi.unstubAllEnvs();
});

function useEmulatorEnv() {
  vi.stubEnv('FACEVERIFY_BASE_URL', emulator.url);
  vi.stubEnv('FACEVERIFY_API_KEY', emulator.apiKey);
  vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', emulator.signingSecret);
  vi.stubEnv('DATABASE_URL', databaseUrl);
}

/** Starts a verification through the app, as its front end would. */
async function startVerification(appUrl: string, userId: string) {
  const response = await fetch(`${appUrl}/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userId }),
  });
  expect(response.status).toBe(201);
  const { verifyUrl } = (await response.json()) as { verifyUrl: string };
  return { verifyUrl, token: new URL(verifyUrl).pathname.split('/').at(-1) ?? '' };
}

async function recorded(appUrl: string, userId: string): Promise<unknown> {
  const response = await fetch(`${appUrl}/verifications/${userId}`);
  return response.status === 200 ? response.json() : undefined;
}

const PENDING = 'event: state\ndata: {"state":"pending"}';
const COMPLETED = 'event: state\ndata: {"state":"completed","status":"verified"}';

it('configured from the environment: writes the users row from the webhook, once, and confirms the redirect', async () => {
  useEmulatorEnv();
  const running = await startServer({ port: 0 });
  server = running;
  emulator.setCallbackUrl(`${running.url}/webhooks/verification`);
  // The service sends this webhook twice: the second is recognised and writes nothing.
  emulator.setFaults({ duplicateWebhooks: { next: 1 } });

  const { token } = await startVerification(running.url, 'alice');
  const completion = await emulator.completeSession(token, 'verified');
  await emulator.webhooksSettled();
  expect(emulator.stats().webhooks.delivered).toBe(2);
  expect(await recorded(running.url, 'alice')).toEqual({
    userId: 'alice',
    status: 'verified',
    eventId: expect.stringMatching(/^evt_/),
    source: 'webhook',
    results: 1,
  });
  expect((await running.store.counts({ now: Date.now() })).completed).toBe(1);

  const page = await fetch(completion.redirect_url ?? '');
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('<h1>Verification verified</h1>');
  expect(html).not.toContain('EventSource');

  const health = await fetch(`${running.url}/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ status: 'ok', store: { reachable: true } });
});

it('writes the row of a result whose webhook never arrives, by polling', async () => {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  try {
    const running = await startServer({
      port: 0,
      pool,
      usersTable: 'users_polled',
      receiverOptions: {
        secret: emulator.signingSecret,
        client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
        pollScheduleMs: [100],
        sweepIntervalMs: 50,
      },
    });
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
          results: 1,
        });
      },
      { timeout: 10_000, interval: 50 },
    );
    await server.close();
    server = undefined;
  } finally {
    await pool.end();
  }
});

it('says what to set when DATABASE_URL is missing', async () => {
  vi.stubEnv('DATABASE_URL', '');
  await expect(startServer({ port: 0 })).rejects.toThrow(/DATABASE_URL is not set/);
});

it('while pending, the return page listens, and its events end with the result', async () => {
  useEmulatorEnv();
  const running = await startServer({ port: 0 });
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

// pnpm start, without a service or a database to reach: what failed and how to start them,
// exit code 1, no stack trace.
it.each([
  ['the emulator', 'GET /v1/sessions/:token failed without a response'],
  ['PostgreSQL', 'PostgresStore.migrate failed: PostgreSQL did not answer'],
])('main.ts without %s running says so, exits 1', async (down, failure) => {
  const port = await freePort();
  const nowhere = await freePort();
  const { code, output } = await runExampleMain(fileURLToPath(new URL('..', import.meta.url)), {
    PORT: String(port),
    FACEVERIFY_BASE_URL: down === 'the emulator' ? `http://127.0.0.1:${nowhere}` : emulator.url,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
    DATABASE_URL:
      down === 'PostgreSQL' ? `postgres://app:app-password@127.0.0.1:${nowhere}/app` : databaseUrl,
  });
  expect(code, output).toBe(1);
  expect(output.startsWith(failure), output).toBe(true);
  expect(output).toContain('Is the emulator running, and PostgreSQL at DATABASE_URL?');
  expect(output).toContain(
    `npx faceverify-emulator --callback-url http://127.0.0.1:${port}/webhooks/verification`,
  );
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain('app-password');
});
