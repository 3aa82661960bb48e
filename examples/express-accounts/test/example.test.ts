import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '@faceverify/core';
import { createTestClock, fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import request from 'supertest';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { readAccountsFile } from '../src/accounts-file.js';
import { type RunningServer, startServer } from '../src/server.js';

// The service with two accounts, as `faceverify-emulator --account acme --account globex`
// starts it: each with its own API key, signing secret and callback URL.
const ACCOUNTS = ['acme', 'globex'] as const;
type AccountId = (typeof ACCOUNTS)[number];
const TOKEN_KEY = 'example-express-accounts-token-key-0123456789';

let emulator: Emulator;
let server: RunningServer | undefined;
let folder: string | undefined;

beforeEach(async () => {
  emulator = await startEmulator({
    seed: 'example-express-accounts',
    accounts: ACCOUNTS.map((id) => ({ id })),
  });
  // The accounts' clients take the service's address from here, as the README's run does.
  vi.stubEnv('FACEVERIFY_BASE_URL', emulator.url);
  vi.stubEnv('FACEVERIFY_TOKEN_KEYS', undefined);
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await emulator.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
  vi.unstubAllEnvs();
});

/** The accounts file the README has you write, from the emulator's banner. */
function writeAccountsFile(): string {
  folder = mkdtempSync(join(tmpdir(), 'faceverify-accounts-'));
  const path = join(folder, 'accounts.json');
  const entries = ACCOUNTS.map((id) => {
    const { apiKey, signingSecret } = emulator.account(id);
    return [id, { apiKey, webhookSecret: signingSecret }];
  });
  writeFileSync(path, JSON.stringify(Object.fromEntries(entries), null, 2));
  return path;
}

/** Points each account's callback URL at its own path of the app, as its Settings would. */
function setCallbackUrls(appUrl: string): void {
  for (const id of ACCOUNTS) {
    emulator.account(id).setCallbackUrl(`${appUrl}/webhooks/verification/${id}`);
  }
}

/** Starts a verification in `account` through the app, as its front end would. */
async function startVerification(appUrl: string, account: AccountId, userId: string) {
  const response = await request(appUrl)
    .post(`/accounts/${account}/verifications`)
    .send({ userId });
  expect(response.status).toBe(201);
  const { verifyUrl } = response.body as { verifyUrl: string };
  // The hosted page's address ends with the session token.
  return { verifyUrl, token: new URL(verifyUrl).pathname.split('/').at(-1) ?? '' };
}

async function recorded(appUrl: string, account: AccountId, userId: string): Promise<unknown> {
  const response = await request(appUrl).get(`/accounts/${account}/verifications/${userId}`);
  return response.status === 200 ? response.body : undefined;
}

it('the same user id in two accounts: each session is completed, and each result arrives for its own account', async () => {
  // Configured as the README says: the accounts file, FACEVERIFY_BASE_URL, FACEVERIFY_TOKEN_KEYS.
  vi.stubEnv('FACEVERIFY_TOKEN_KEYS', TOKEN_KEY);
  const running = await startServer({ accounts: readAccountsFile(writeAccountsFile()), port: 0 });
  server = running;
  setCallbackUrls(running.url);

  const acme = await startVerification(running.url, 'acme', 'alice');
  const globex = await startVerification(running.url, 'globex', 'alice');
  const acmeDone = await emulator.completeSession(acme.token, 'verified');
  const globexDone = await emulator.completeSession(globex.token, 'liveness_failed');
  await emulator.webhooksSettled();

  expect(emulator.stats().webhooks).toMatchObject({ delivered: 2, failed: 0 });
  expect(await recorded(running.url, 'acme', 'alice')).toMatchObject({
    account: 'acme',
    userId: 'alice',
    status: 'verified',
    source: 'webhook',
  });
  expect(await recorded(running.url, 'globex', 'alice')).toMatchObject({
    account: 'globex',
    userId: 'alice',
    status: 'failed',
    source: 'webhook',
  });

  // Each redirect lands on its account's return page, which confirms within the account.
  for (const [done, status] of [
    [acmeDone, 'verified'],
    [globexDone, 'failed'],
  ] as const) {
    const page = await request(done.redirect_url ?? '').get('');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<h1>Verification ${status}</h1>`);
  }
  // One account's return page knows nothing of another account's token.
  const crossed = await request(running.url)
    .get('/accounts/acme/verification/return')
    .query({ token: globex.token });
  expect(crossed.status).toBe(404);
  const health = await request(running.url).get('/health');
  expect(health.body).toMatchObject({ status: 'ok', webhooks: { accepted: 2 } });
});

it("records a result whose webhook never arrives by polling with its own account's key", async () => {
  // Sweeps run on this clock: no session is polled before the clock moves, so acme's result,
  // whose webhook arrives, cannot be polled first however slowly the webhook travels.
  const clock = createTestClock(Date.now());
  const running = await startServer({
    accounts: readAccountsFile(writeAccountsFile()),
    port: 0,
    receiver: { tokenKeys: [TOKEN_KEY], clock, pollScheduleMs: [1_000], sweepIntervalMs: 50 },
  });
  server = running;
  setCallbackUrls(running.url);

  const acme = await startVerification(running.url, 'acme', 'bob');
  const globex = await startVerification(running.url, 'globex', 'bob');
  // globex's webhook, the next one sent, is lost; acme's arrives.
  emulator.setFaults({ dropWebhooks: { next: 1 } });
  await emulator.completeSession(globex.token, 'verified');
  await emulator.completeSession(acme.token, 'liveness_failed');
  await emulator.webhooksSettled();
  expect(emulator.stats().webhooks).toMatchObject({ dropped: 1, delivered: 1 });
  expect(await recorded(running.url, 'acme', 'bob')).toMatchObject({
    account: 'acme',
    status: 'failed',
    source: 'webhook',
  });
  expect(await recorded(running.url, 'globex', 'bob')).toBeUndefined();

  // globex's session falls due for its first poll, made with globex's API key.
  await clock.advance(1_000);
  await vi.waitFor(
    async () => {
      expect(await recorded(running.url, 'globex', 'bob')).toMatchObject({
        account: 'globex',
        status: 'verified',
        source: 'poll',
      });
    },
    { timeout: 5_000, interval: 50 },
  );
});

it("refuses a webhook on another account's path, and pages of an account it does not have", async () => {
  const running = await startServer({
    accounts: readAccountsFile(writeAccountsFile()),
    port: 0,
    receiver: { tokenKeys: [TOKEN_KEY] },
  });
  server = running;
  const delivery = await signedDelivery(fixturePayload({ external_user_id: 'carol' }), {
    secret: emulator.account('acme').signingSecret,
  });
  const post = (path: string) =>
    request(running.url).post(path).set(delivery.headers).send(delivery.text);

  const crossed = await post('/webhooks/verification/globex');
  expect(crossed.status).toBe(401);
  expect(crossed.body).toMatchObject({ error: 'signature_invalid' });
  const unknown = await post('/webhooks/verification/initech');
  expect(unknown.status).toBe(404);
  expect(unknown.body).toMatchObject({ error: 'account_unknown' });
  const start = await request(running.url)
    .post('/accounts/initech/verifications')
    .send({ userId: 'carol' });
  expect(start.status).toBe(404);
});

it('says what is wrong with the accounts file, and that several accounts need token keys', async () => {
  expect(() => readAccountsFile('/nonexistent/accounts.json')).toThrow(ConfigurationError);
  folder = mkdtempSync(join(tmpdir(), 'faceverify-accounts-'));
  const path = join(folder, 'accounts.json');
  writeFileSync(path, JSON.stringify({ acme: { apiKey: 'fv_test_x' } }));
  expect(() => readAccountsFile(path)).toThrow(/"apiKey" and "webhookSecret"/);
  await expect(startServer({ accounts: readAccountsFile(writeAccountsFile()) })).rejects.toThrow(
    /FACEVERIFY_TOKEN_KEYS/,
  );
});
