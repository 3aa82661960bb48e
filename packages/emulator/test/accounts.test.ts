import { createHmac, randomBytes } from 'node:crypto';
import { ConfigurationError } from '@faceverify/core';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliRequest } from '../src/cli/cli-options.js';
import { parseArgs } from '../src/cli/parse-args.js';
import { type Emulator, type EmulatorOptions, startEmulator } from '../src/index.js';
import { control, getSession, type Json, postVerify } from './support/api.js';
import {
  assertCliBuilt,
  type CliRun,
  printed,
  runCli,
  waitUntilRunning,
} from './support/cli-process.js';
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support/webhook-receiver.js';

// No skip when Chromium is missing: launching fails and so does the suite.
const CHROMIUM = '/usr/bin/chromium';
const ACME = { id: 'acme', key: 'fv_test_acme', secret: 'whsec_acme_secret' };
const GLOBEX = {
  id: 'globex',
  keys: ['fv_test_globex_one', 'fv_test_globex_two'],
  secret: 'whsec_globex_secret',
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function started(options: EmulatorOptions): Promise<Emulator> {
  const emulator = await startEmulator(options);
  cleanups.push(() => emulator.close());
  return emulator;
}

async function receiverFor(secret: string): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver({ secret });
  cleanups.push(() => receiver.close());
  return receiver;
}

/** Two accounts, acme and globex, each with its own secret and its own receiver. */
async function twoAccounts(options: Omit<EmulatorOptions, 'accounts'> = {}) {
  const acme = await receiverFor(ACME.secret);
  const globex = await receiverFor(GLOBEX.secret);
  const emulator = await started({
    ...options,
    accounts: [
      { id: ACME.id, apiKeys: [ACME.key], signingSecret: ACME.secret, callbackUrl: acme.url },
      {
        id: GLOBEX.id,
        apiKeys: GLOBEX.keys,
        signingSecret: GLOBEX.secret,
        callbackUrl: globex.url,
      },
    ],
  });
  return { emulator, acme, globex };
}

/** The interface's signature, computed here with node:crypto rather than the library's own. */
function hexHmac(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

const userOf = (webhook: ReceivedWebhook | undefined) =>
  (JSON.parse(webhook?.rawBody.toString('utf8') ?? '{}') as Json).external_user_id;

const bearer = (key: string) => `Bearer ${key}`;

describe('sessions of several accounts', () => {
  it("send each webhook to their account's callback URL only, signed with its secret", async () => {
    const { emulator, acme, globex } = await twoAccounts();
    const ofAcme = await emulator.createSession({ externalUserId: 'acme-user', apiKey: ACME.key });
    const ofGlobex = await emulator.createSession({
      externalUserId: 'globex-user',
      apiKey: GLOBEX.keys[1],
    });
    await emulator.completeSession(ofAcme.token, 'verified');
    await emulator.completeSession(ofGlobex.token, 'duplicate');
    const [toAcme] = await acme.waitFor(1);
    const [toGlobex] = await globex.waitFor(1);
    await emulator.webhooksSettled();

    expect(acme.received).toHaveLength(1);
    expect(globex.received).toHaveLength(1);
    expect(userOf(toAcme)).toBe('acme-user');
    expect(userOf(toGlobex)).toBe('globex-user');
    const rawAcme = toAcme?.rawBody ?? Buffer.alloc(0);
    const rawGlobex = toGlobex?.rawBody ?? Buffer.alloc(0);
    expect(toAcme?.signature).toBe(hexHmac(ACME.secret, rawAcme));
    expect(toAcme?.signature).not.toBe(hexHmac(GLOBEX.secret, rawAcme));
    expect(toGlobex?.signature).toBe(hexHmac(GLOBEX.secret, rawGlobex));
    expect(toGlobex?.signature).not.toBe(hexHmac(ACME.secret, rawGlobex));
    expect(emulator.stats().webhooks).toMatchObject({ events: 2, sent: 2, delivered: 2 });
  });

  it("answer another account's key exactly as for a token that does not exist", async () => {
    const { emulator } = await twoAccounts();
    const { token } = await emulator.createSession({ externalUserId: 'acme-user' });
    const unknownToken = randomBytes(32).toString('base64url');
    const unknown = await getSession(emulator, unknownToken, bearer(GLOBEX.keys[0] ?? ''));
    expect(unknown.status).toBe(404);

    for (const state of ['pending', 'completed']) {
      if (state === 'completed') await emulator.completeSession(token, 'verified');
      const foreign = await getSession(emulator, token, bearer(GLOBEX.keys[0] ?? ''));
      expect(foreign.status, state).toBe(404);
      expect(foreign.text, state).toBe(unknown.text);
      expect(foreign.headers.get('content-type'), state).toBe(unknown.headers.get('content-type'));
      expect((await getSession(emulator, token, bearer(ACME.key))).status, state).toBe(200);
    }
  });

  it('count the rate limit of each key on its own, across accounts', async () => {
    const { emulator } = await twoAccounts({
      rateLimits: { verify: { limit: 2, windowMs: 60_000 } },
    });
    const verify = (key: string) => postVerify(emulator, { external_user_id: 'u' }, bearer(key));
    expect((await verify(ACME.key)).status).toBe(201);
    expect((await verify(ACME.key)).status).toBe(201);
    const refused = await verify(ACME.key);
    expect(refused.status).toBe(429);
    expect(refused.body.retry_after_ms).toBeGreaterThan(0);
    for (const key of GLOBEX.keys) {
      const allowed = await verify(key);
      expect(allowed.status, key).toBe(201);
      expect(allowed.headers.get('x-ratelimit-remaining'), key).toBe('1');
    }
    expect(emulator.stats().rateLimited.verify).toBe(1);
  });

  it('are listed, resent and dumped with their account', async () => {
    const { emulator, acme, globex } = await twoAccounts();
    await emulator.createSession({ externalUserId: 'acme-user', apiKey: ACME.key });
    const ofGlobex = await emulator.createSession({
      externalUserId: 'globex-user',
      apiKey: GLOBEX.keys[0],
    });
    await emulator.completeSession(ofGlobex.token, 'verified');
    await globex.waitFor(1);

    const listed = await control(emulator, 'GET', 'sessions');
    expect(listed.body.accounts).toEqual([
      { id: ACME.id, callbackUrl: acme.url },
      { id: GLOBEX.id, callbackUrl: globex.url },
    ]);
    const sessions = listed.body.sessions as Array<{
      id: string;
      account: string;
      externalUserId: string;
    }>;
    expect(sessions.map(({ account, externalUserId }) => [account, externalUserId]).sort()).toEqual(
      [
        [ACME.id, 'acme-user'],
        [GLOBEX.id, 'globex-user'],
      ],
    );

    const globexId = sessions.find((session) => session.account === GLOBEX.id)?.id ?? '';
    const resend = await fetch(`${emulator.url}/__emulator/sessions/${globexId}/resend`, {
      method: 'POST',
    });
    expect(resend.status).toBe(202);
    const [, resent] = await globex.waitFor(2);
    await emulator.webhooksSettled();
    expect(resent?.signature).toBe(hexHmac(GLOBEX.secret, resent?.rawBody ?? Buffer.alloc(0)));
    expect(acme.received).toHaveLength(0);

    const dump = emulator.dumpState() as { sessions: { sessions: Record<string, Json> } };
    const dumped = Object.values(dump.sessions.sessions);
    expect(dumped.map((record) => [record.accountId, record.externalUserId]).sort()).toEqual([
      [ACME.id, 'acme-user'],
      [GLOBEX.id, 'globex-user'],
    ]);
  });

  it('send nothing for an account without a callback URL; credentials are generated', async () => {
    const withCallback = await receiverFor('unknown until the emulator starts');
    const emulator = await started({
      accounts: [{ id: 'one', callbackUrl: withCallback.url }, { id: 'two' }],
    });
    const [one, two] = emulator.accounts;
    for (const account of [one, two]) {
      expect(account?.apiKey).toMatch(/^fv_test_[0-9a-f]{32}$/);
      expect(account?.signingSecret).toMatch(/^whsec_[0-9a-f]{48}$/);
    }
    expect(one?.apiKey).not.toBe(two?.apiKey);
    expect(one?.signingSecret).not.toBe(two?.signingSecret);
    expect(two?.callbackUrl).toBeNull();

    const ofTwo = await emulator.createSession({ externalUserId: 'two-user', apiKey: two?.apiKey });
    await emulator.completeSession(ofTwo.token, 'verified');
    const ofOne = await emulator.createSession({ externalUserId: 'one-user', apiKey: one?.apiKey });
    await emulator.completeSession(ofOne.token, 'verified');
    const [received] = await withCallback.waitFor(1);
    await emulator.webhooksSettled();
    expect(userOf(received)).toBe('one-user');
    expect(received?.signature).toBe(
      hexHmac(one?.signingSecret ?? '', received?.rawBody ?? Buffer.alloc(0)),
    );
    expect(withCallback.received).toHaveLength(1);
    expect(emulator.stats().webhooks).toMatchObject({ events: 2, sent: 1, skipped: 1 });
  });
});

describe('the handle of an emulator with several accounts', () => {
  it('keeps the single-account members for the first account, and lists all', async () => {
    const { emulator, acme, globex } = await twoAccounts();
    expect(emulator.apiKey).toBe(ACME.key);
    expect(emulator.apiKeys).toEqual([ACME.key]);
    expect(emulator.signingSecret).toBe(ACME.secret);
    expect(emulator.callbackUrl).toBe(acme.url);
    expect(
      emulator.accounts.map(({ id, apiKey, apiKeys, signingSecret, callbackUrl }) => ({
        id,
        apiKey,
        apiKeys,
        signingSecret,
        callbackUrl,
      })),
    ).toEqual([
      {
        id: ACME.id,
        apiKey: ACME.key,
        apiKeys: [ACME.key],
        signingSecret: ACME.secret,
        callbackUrl: acme.url,
      },
      {
        id: GLOBEX.id,
        apiKey: GLOBEX.keys[0],
        apiKeys: GLOBEX.keys,
        signingSecret: GLOBEX.secret,
        callbackUrl: globex.url,
      },
    ]);
    const account = emulator.account(GLOBEX.id);
    expect([account.id, account.apiKey, account.signingSecret]).toEqual([
      GLOBEX.id,
      GLOBEX.keys[0],
      GLOBEX.secret,
    ]);
  });

  it("changes one account's callback URL through account(id), and no other's", async () => {
    const { emulator, acme, globex } = await twoAccounts();
    const moved = await receiverFor(GLOBEX.secret);
    emulator.account(GLOBEX.id).setCallbackUrl(moved.url);
    expect(emulator.account(GLOBEX.id).callbackUrl).toBe(moved.url);
    expect(emulator.accounts[1]?.callbackUrl).toBe(moved.url);
    expect(emulator.callbackUrl).toBe(acme.url);

    const { token } = await emulator.createSession({ externalUserId: 'g', apiKey: GLOBEX.keys[0] });
    await emulator.completeSession(token, 'verified');
    const [webhook] = await moved.waitFor(1);
    await emulator.webhooksSettled();
    expect(webhook?.verified).toBe(true);
    expect(globex.received).toHaveLength(0);
    expect(acme.received).toHaveLength(0);
    expect(() => emulator.account(GLOBEX.id).setCallbackUrl('ftp://example.com/hook')).toThrow(
      ConfigurationError,
    );
  });

  it('throws, naming the accounts there are, for an unknown id', async () => {
    const { emulator } = await twoAccounts();
    expect(() => emulator.account('initech')).toThrow(
      'The emulator has no account "initech"; its accounts are "acme", "globex".',
    );
  });

  it("reads and sets an account's callback URL through /__emulator/settings?account=", async () => {
    const { emulator, acme } = await twoAccounts();
    const elsewhere = 'http://127.0.0.1:9/webhooks/verification';
    const put = await control(emulator, 'PUT', 'settings?account=globex', {
      callbackUrl: elsewhere,
    });
    expect(put).toMatchObject({ status: 200, body: { callbackUrl: elsewhere } });
    expect(emulator.account(GLOBEX.id).callbackUrl).toBe(elsewhere);
    expect((await control(emulator, 'GET', 'settings?account=globex')).body).toEqual({
      callbackUrl: elsewhere,
    });
    expect((await control(emulator, 'GET', 'settings')).body).toEqual({ callbackUrl: acme.url });
    const unknown = await control(emulator, 'GET', 'settings?account=initech');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'account_not_found' });
    expect(String(unknown.body.message)).toContain('acme, globex');
  });
});

describe('the single-account options', () => {
  it('describe one account, default, whose keys all reach its sessions', async () => {
    const receiver = await receiverFor('whsec_single');
    const emulator = await started({
      apiKeys: ['fv_test_first', 'fv_test_second'],
      signingSecret: 'whsec_single',
      callbackUrl: receiver.url,
    });
    expect(emulator.accounts).toHaveLength(1);
    const account = emulator.account('default');
    expect(account).toMatchObject({
      id: 'default',
      apiKey: 'fv_test_first',
      apiKeys: ['fv_test_first', 'fv_test_second'],
      signingSecret: 'whsec_single',
      callbackUrl: receiver.url,
    });
    const { token } = await emulator.createSession({
      externalUserId: 'u',
      apiKey: 'fv_test_first',
    });
    expect((await getSession(emulator, token, bearer('fv_test_second'))).status).toBe(200);
  });
});

describe('the accounts option', () => {
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln';
  it.each<[string, EmulatorOptions, string | RegExp]>([
    ['an empty list', { accounts: [] }, /^accounts must hold at least one account/],
    ['an empty id', { accounts: [{ id: '' }] }, /^accounts\[0\]\.id must be 1 to 64 letters/],
    ['an id with a space', { accounts: [{ id: 'ac me' }] }, /^accounts\[0\]\.id must be/],
    ['an id of 65 characters', { accounts: [{ id: 'a'.repeat(65) }] }, /^accounts\[0\]\.id/],
    [
      'an id given twice',
      { accounts: [{ id: 'acme' }, { id: 'acme' }] },
      'accounts[1].id "acme" is given twice: give each account its own id.',
    ],
    [
      'a key of two accounts',
      {
        accounts: [
          { id: 'acme', apiKeys: ['fv_test_shared'] },
          { id: 'globex', apiKeys: ['fv_test_other', 'fv_test_shared'] },
        ],
      },
      /^accounts\[1\] \("globex"\) has an API key of account "acme": a key belongs to one account/,
    ],
    ['no keys', { accounts: [{ id: 'a', apiKeys: [] }] }, /^accounts\[0\]\.apiKeys must hold/],
    [
      'a key twice in one account',
      { accounts: [{ id: 'a', apiKeys: ['fv_test_k', 'fv_test_k'] }] },
      'accounts[0].apiKeys holds a key twice.',
    ],
    [
      'a JWT as a key',
      { accounts: [{ id: 'a' }, { id: 'b', apiKeys: [jwt] }] },
      /^accounts\[1\]\.apiKeys\[0\] looks like a JWT/,
    ],
    [
      'an empty signing secret',
      { accounts: [{ id: 'a', signingSecret: '' }] },
      'accounts[0].signingSecret must not be empty.',
    ],
    [
      'a callback URL that is not http(s)',
      { accounts: [{ id: 'a', callbackUrl: 'mailto:ops@example.com' }] },
      'accounts[0].callbackUrl must be an absolute http or https URL.',
    ],
    [
      'a link-local callback URL',
      { accounts: [{ id: 'a', callbackUrl: 'http://169.254.169.254/hook' }] },
      /^accounts\[0\]\.callbackUrl must not be a link-local address/,
    ],
    [
      'a misspelt field',
      { accounts: [{ id: 'a', callbackURL: 'http://127.0.0.1:1/' } as never] },
      'accounts[0] has an unknown field "callbackURL"; ' +
        'an account takes id, apiKeys, signingSecret, callbackUrl.',
    ],
    [
      'accounts with apiKeys',
      { accounts: [{ id: 'a' }], apiKeys: ['fv_test_k'] },
      /^accounts cannot be given with apiKeys, which describe a single account/,
    ],
    [
      'accounts with signingSecret and callbackUrl',
      { accounts: [{ id: 'a' }], signingSecret: 's', callbackUrl: null },
      /^accounts cannot be given with signingSecret, callbackUrl.*set them inside each account/,
    ],
  ])('refuses %s with a ConfigurationError saying what to fix', async (_case, options, message) => {
    const error = await startEmulator(options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    if (typeof message === 'string') expect((error as Error).message).toBe(message);
    else expect((error as Error).message).toMatch(message);
  });

  it('accepts ids of 1 and 64 letters, digits, _ and -', async () => {
    const ids = ['a', `Ab9_-${'x'.repeat(59)}`];
    const emulator = await started({ accounts: ids.map((id) => ({ id })) });
    expect(emulator.accounts.map((account) => account.id)).toEqual(ids);
  });
});

describe('the --account flag', () => {
  const request = (argv: string[], env: Record<string, string> = {}) =>
    cliRequest(parseArgs(argv, env));

  it('declares an account per flag, or per comma-separated id in the environment', () => {
    const url = 'http://127.0.0.1:3000/webhooks/verification';
    expect(request(['--account', `acme=${url}`, '--account=globex']).options.accounts).toEqual([
      { id: 'acme', callbackUrl: url },
      { id: 'globex' },
    ]);
    expect(request([], { FACEVERIFY_EMULATOR_ACCOUNTS: 'acme, globex' }).options.accounts).toEqual([
      { id: 'acme' },
      { id: 'globex' },
    ]);
    expect(request([]).options.accounts).toBeUndefined();
  });

  it('refuses to be combined with the single-account flags', () => {
    expect(() => request(['--account', 'acme', '--api-key', 'fv_test_k'])).toThrow(
      /--account cannot be combined with --api-key/,
    );
    expect(() =>
      request(['--account', 'acme'], { FACEVERIFY_EMULATOR_SIGNING_SECRET: 'whsec_s' }),
    ).toThrow(/--signing-secret \(as a flag or its environment variable\)/);
  });

  describe('in the running command', () => {
    let run: CliRun | undefined;
    beforeAll(() => {
      assertCliBuilt();
    });
    afterEach(async () => {
      if (run && run.child.exitCode === null && run.child.signalCode === null) {
        run.child.kill('SIGKILL');
        await run.exited;
      }
      run = undefined;
    });

    /** The lines the banner prints under `Account <id>`. */
    const blockOf = (output: string, id: string) =>
      output.split(`  Account ${id}\n`)[1]?.split(/\n {2}\S|\n\n/)[0] ?? '';

    it('prints each account and serves each with its own credentials', async () => {
      const receiver = await receiverFor('checked below with the printed secret');
      run = runCli(['--port', '0', '--account', `acme=${receiver.url}`, '--account', 'globex']);
      const output = await waitUntilRunning(run);
      const baseUrl = printed(output, 'Base URL');
      const acme = blockOf(output, 'acme');
      const globex = blockOf(output, 'globex');
      const acmeKey = printed(acme, 'API key');
      const acmeSecret = printed(acme, 'Signing secret');
      expect(printed(acme, 'Callback URL')).toBe(receiver.url);
      expect(printed(globex, 'API key')).toMatch(/^fv_test_[0-9a-f]{32}$/);
      expect(printed(globex, 'API key')).not.toBe(acmeKey);
      expect(printed(globex, 'Callback URL')).toContain('--account globex=<url>');
      // Every account's variables, each block ready for an application of that account.
      for (const [id, block] of [
        ['acme', acme],
        ['globex', globex],
      ] as const) {
        expect(output).toContain(
          [
            `Environment for an application of account ${id}:`,
            `  FACEVERIFY_BASE_URL=${baseUrl}`,
            `  FACEVERIFY_API_KEY=${printed(block, 'API key')}`,
            `  FACEVERIFY_WEBHOOK_SECRET=${printed(block, 'Signing secret')}`,
            '  FACEVERIFY_POLL_SCHEDULE_MS=5000,10000,30000',
          ].join('\n'),
        );
      }

      const created = await fetch(`${baseUrl}/v1/verify`, {
        method: 'POST',
        headers: { authorization: bearer(acmeKey), 'content-type': 'application/json' },
        body: JSON.stringify({ external_user_id: 'cli-acme-user' }),
      });
      const { token } = (await created.json()) as { token: string };
      const foreign = await fetch(`${baseUrl}/v1/sessions/${token}`, {
        headers: { authorization: bearer(printed(globex, 'API key')) },
      });
      expect(foreign.status).toBe(404);
      await fetch(`${baseUrl}/v1/sessions/${token}/complete`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ outcome: 'verified' }),
      });
      const [webhook] = await receiver.waitFor(1);
      expect(userOf(webhook)).toBe('cli-acme-user');
      expect(webhook?.signature).toBe(hexHmac(acmeSecret, webhook?.rawBody ?? Buffer.alloc(0)));
    });

    it('exits 2 on an invalid account id, saying what an id may hold', async () => {
      run = runCli(['--port', '0', '--account', 'acme corp']);
      expect(await run.exited).toBe(2);
      expect(run.stderr()).toMatch(/accounts\[0\]\.id must be 1 to 64 letters/);
    });
  });
});

describe('the inspector page, in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function inspectorOf(emulator: Emulator) {
    const page = await browser.newPage();
    cleanups.push(() => page.close());
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    cleanups.push(async () => expect(errors, 'script errors on the page').toEqual([]));
    await page.goto(`${emulator.url}/__emulator/inspector`);
    return page;
  }

  it("shows each session's account and each account's callback URL, with several", async () => {
    const { emulator, acme } = await twoAccounts();
    emulator.account(GLOBEX.id).setCallbackUrl(null);
    const page = await inspectorOf(emulator);
    await emulator.createSession({ externalUserId: 'page-globex-user', apiKey: GLOBEX.keys[0] });
    const row = page.locator('tr[data-session]', { hasText: 'page-globex-user' });
    await row.waitFor();
    expect(await row.locator('td.account').textContent()).toBe(GLOBEX.id);
    expect(await row.locator('td.account').isVisible()).toBe(true);
    expect(await page.locator('th.account').isVisible()).toBe(true);
    expect(await page.locator('#callback').textContent()).toBe(
      `acme: ${acme.url} · globex: (none: webhooks are not sent)`,
    );
  });

  it('shows no account column with one account', async () => {
    const emulator = await started({});
    const page = await inspectorOf(emulator);
    await emulator.createSession({ externalUserId: 'page-single-user' });
    const row = page.locator('tr[data-session]', { hasText: 'page-single-user' });
    await row.waitFor();
    expect(await row.locator('td.account').isVisible()).toBe(false);
    expect(await page.locator('th.account').isVisible()).toBe(false);
    expect(await page.locator('#callback').textContent()).toBe('(none: webhooks are not sent)');
  });
});
