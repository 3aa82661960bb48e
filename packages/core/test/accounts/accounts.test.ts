import { afterEach, describe, expect, it } from 'vitest';
import { AccountDirectory } from '../../src/accounts/account-directory.js';
import type { AccountConfig } from '../../src/accounts/accounts-option.js';
import { createLog } from '../../src/base/logging/logger.js';
import {
  type Client,
  ConfigurationError,
  createClient,
  createReceiver,
  MemoryStore,
  type Receiver,
  type ReceiverOptions,
  type VerificationCompletedEvent,
} from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';
import {
  type ReceivedRequest,
  type Reply,
  type ScriptedServer,
  startScriptedServer,
} from '../client/scripted-server.js';

// One Receiver, several accounts of the service: each account's webhooks are verified with its
// secrets only, its sessions polled with its key only, and the same user id in two accounts
// is two users. The service here is a real HTTP server that keeps each session with the key
// that created it and answers another account's key as it answers an unknown token.

const TOKEN_KEY = 'accounts-test-token-key-0123456789abcdef';
const SECRETS = { north: 'whsec_north_0123456789abcdef', south: 'whsec_south_0123456789abcdef' };
const KEYS = { north: 'fv_test_north', south: 'fv_test_south' };
type AccountId = keyof typeof KEYS;

interface ServiceSession {
  key: string;
  user: string;
  status: 'pending' | 'verified';
}

/** The service: sessions by token, each with the API key that created it. */
class TwoAccountService {
  readonly sessions = new Map<string, ServiceSession>();
  private next = 0;
  server!: ScriptedServer;

  async start(now: () => number) {
    this.server = await startScriptedServer((request) => this.answer(request), now);
    return this;
  }

  complete(token: string) {
    this.sessions.get(token)!.status = 'verified';
  }

  /** The API keys the GETs of `token` were sent with. */
  keysAskedFor(token: string): string[] {
    return this.server.requests
      .filter((request) => request.method === 'GET' && request.url.endsWith(`/${token}`))
      .map((request) => String(request.headers.authorization).replace('Bearer ', ''));
  }

  private answer(request: ReceivedRequest): Reply {
    const key = String(request.headers.authorization ?? '').replace('Bearer ', '');
    if (request.method === 'POST' && request.url === '/v1/verify') {
      const token = `tok_${++this.next}`;
      const { external_user_id: user } = JSON.parse(request.body) as { external_user_id: string };
      this.sessions.set(token, { key, user, status: 'pending' });
      return {
        status: 200,
        json: { token, verify_url: `${this.server.url}/verify?token=${token}` },
      };
    }
    const token = request.url.split('/').at(-1)!;
    const session = this.sessions.get(token);
    // Another account's token is unknown to this key, as an unknown token is.
    if (!session || session.key !== key) {
      return { status: 404, json: { success: false, message: 'Session not found' } };
    }
    const {
      event: _event,
      extra: _extra,
      ...result
    } = fixturePayload({
      external_user_id: session.user,
    });
    return {
      status: 200,
      json: {
        token,
        status: session.status,
        external_user_id: session.user,
        ...(session.status === 'verified' ? { result } : {}),
      },
    };
  }
}

let service: TwoAccountService | undefined;
afterEach(async () => {
  await service?.server.close();
  service = undefined;
});

/**
 * What `waitForResult` says of `token` now: its timeout is passed on the test clock, so a
 * session still open answers `pending` at once.
 */
async function stateOf(
  receiver: Receiver,
  clock: ReturnType<typeof createTestClock>,
  token: string,
): Promise<string> {
  let state: string | undefined;
  const waiting = receiver.waitForResult(token, { timeoutMs: 1_000 }).then((outcome) => {
    state = outcome.state;
  });
  while (state === undefined) {
    await clock.advance(1_000);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await waiting;
  return state;
}

async function setUp(options: Partial<ReceiverOptions> = {}) {
  const clock = createTestClock(Date.UTC(2030, 0, 1));
  service = await new TwoAccountService().start(clock.now);
  const account = (id: AccountId): AccountConfig => ({
    secret: SECRETS[id],
    client: { apiKey: KEYS[id], baseUrl: service!.server.url },
  });
  const receiver = createReceiver({
    accounts: { north: account('north'), south: account('south') },
    tokenKeys: [TOKEN_KEY],
    store: new MemoryStore(),
    clock,
    logger: false,
    pollScheduleMs: [60_000],
    ...options,
  });
  const events: VerificationCompletedEvent[] = [];
  receiver.on('verification.completed', (event) => {
    events.push(event);
  });
  receiver.on('error', () => undefined);
  return { receiver, clock, events, service };
}

/** The webhook the service sends when `user`'s session completes, signed by `signer`'s secret. */
async function webhookOf(user: string, signer: AccountId, account: string) {
  const delivery = await signedDelivery(fixturePayload({ external_user_id: user }), {
    secret: SECRETS[signer],
  });
  return { ...delivery, account };
}

describe('one Receiver, several accounts', () => {
  it('the same user id in two accounts is two users: a webhook completes its own account’s session only', async () => {
    const { receiver, clock, events, service } = await setUp();
    const north = await receiver.startVerification({ externalUserId: 'alice', account: 'north' });
    const south = await receiver.startVerification({ externalUserId: 'alice', account: 'south' });
    service.complete(north.token);

    const answer = await receiver.receive(await webhookOf('alice', 'north', 'north'));

    expect(answer.status).toBe(200);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      account: 'north',
      sessionToken: north.token,
      confirmed: true,
    });
    // The confirming GET went out with north's key; south's session was never asked about.
    expect(service.keysAskedFor(north.token)).toEqual([KEYS.north]);
    expect(service.keysAskedFor(south.token)).toEqual([]);
    expect(await stateOf(receiver, clock, south.token)).toBe('pending');
  });

  it('a body signed with another account’s secret is refused 401, whatever it names', async () => {
    const { receiver, events } = await setUp();
    await receiver.startVerification({ externalUserId: 'alice', account: 'north' });
    const answer = await receiver.receive(await webhookOf('alice', 'south', 'north'));
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'signature_invalid' });
    expect(events).toEqual([]);
  });

  it('a session whose webhook is lost is polled with its own account’s key', async () => {
    const { receiver, clock, events, service } = await setUp();
    const north = await receiver.startVerification({ externalUserId: 'bob', account: 'north' });
    const south = await receiver.startVerification({ externalUserId: 'bob', account: 'south' });
    service.complete(north.token);
    service.complete(south.token);

    await clock.advance(60_000);
    const report = await receiver.sweep();

    expect(report.delivered).toBe(2);
    expect(service.keysAskedFor(north.token)).toEqual([KEYS.north]);
    expect(service.keysAskedFor(south.token)).toEqual([KEYS.south]);
    expect(events.map((event) => [event.account, event.sessionToken]).sort()).toEqual([
      ['north', north.token],
      ['south', south.token],
    ]);
  });

  it('waitForResult and confirm of a token of another account answer unknown', async () => {
    const { receiver, service } = await setUp();
    const north = await receiver.startVerification({ externalUserId: 'carol', account: 'north' });
    service.complete(north.token);
    await receiver.receive(await webhookOf('carol', 'north', 'north'));

    expect((await receiver.waitForResult(north.token, { account: 'south' })).state).toBe('unknown');
    expect((await receiver.confirm(north.token, { account: 'south' })).status).toBe('unknown');
    expect((await receiver.waitForResult(north.token, { account: 'north' })).state).toBe(
      'completed',
    );
    expect((await receiver.confirm(north.token)).status).toBe('verified');
  });

  it('erasing a user of one account leaves the same user id of another', async () => {
    const { receiver, clock } = await setUp();
    const north = await receiver.startVerification({ externalUserId: 'dave', account: 'north' });
    const south = await receiver.startVerification({ externalUserId: 'dave', account: 'south' });

    expect(await receiver.forgetUser('dave', { account: 'north' })).toEqual({ removed: 1 });

    expect(await stateOf(receiver, clock, north.token)).toBe('unknown');
    expect(await stateOf(receiver, clock, south.token)).toBe('pending');
    await expect(receiver.forgetUser('dave')).rejects.toThrow(/needs `account`/);
  });

  it('a replayed body is recognised per account, and an unknown account is 404 without a lookup', async () => {
    const { receiver, service } = await setUp();
    const north = await receiver.startVerification({ externalUserId: 'erin', account: 'north' });
    service.complete(north.token);
    const webhook = await webhookOf('erin', 'north', 'north');
    expect(JSON.parse((await receiver.receive(webhook)).body)).toEqual({ received: true });
    expect(JSON.parse((await receiver.receive(webhook)).body)).toEqual({
      received: true,
      duplicate: true,
    });
    const unknown = await receiver.receive({ ...webhook, account: 'west' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ error: 'account_unknown' });
  });

  it('a session of an account no longer configured is left unpolled and raised as account_missing', async () => {
    const clock = createTestClock(Date.UTC(2030, 0, 1));
    service = await new TwoAccountService().start(clock.now);
    const config = (id: AccountId): AccountConfig => ({
      secret: SECRETS[id],
      client: { apiKey: KEYS[id], baseUrl: service!.server.url },
    });
    const store = new MemoryStore();
    const common = { tokenKeys: [TOKEN_KEY], store, clock, logger: false as const };
    const before = createReceiver({
      ...common,
      accounts: { north: config('north'), south: config('south') },
    });
    const started = await before.startVerification({ externalUserId: 'fay', account: 'south' });
    service.complete(started.token);

    // The next deployment lists north only: south's session must not be asked about with north's key.
    const after = createReceiver({ ...common, accounts: { north: config('north') } });
    const events: VerificationCompletedEvent[] = [];
    after.on('verification.completed', (event) => {
      events.push(event);
    });
    await clock.advance(60_000);
    const report = await after.sweep();

    expect(report).toMatchObject({ leased: 1, left: 1, delivered: 0, expired: 0 });
    expect(service.keysAskedFor(started.token)).toEqual([]);
    expect(events).toEqual([]);
    expect((await after.health()).reasons).toContain('account_missing');
    // Given back, the account's session is delivered.
    await clock.advance(60_000);
    expect((await before.sweep()).delivered).toBe(1);
  });
});

describe('health and alarms per account', () => {
  it("one account whose webhooks never arrive is raised as its own webhooks_missing, hidden in the Receiver's", async () => {
    const { receiver, clock, service } = await setUp();
    const alerts: { code: string; account: string | undefined }[] = [];
    receiver.on('alert', (alert) => alerts.push({ code: alert.code, account: alert.account }));
    // South's webhooks arrive; north's callback URL is wrong: its results come by polling only.
    for (let index = 0; index < 3; index++) {
      const north = await receiver.startVerification({
        externalUserId: `north-${index}`,
        account: 'north',
      });
      const south = await receiver.startVerification({
        externalUserId: `south-${index}`,
        account: 'south',
      });
      service.complete(north.token);
      service.complete(south.token);
      expect(
        (await receiver.receive(await webhookOf(`south-${index}`, 'south', 'south'))).status,
      ).toBe(200);
    }
    await clock.advance(60_000);
    expect((await receiver.sweep()).delivered).toBe(3);

    const north = await receiver.health({ account: 'north' });
    expect(north).toMatchObject({
      account: 'north',
      status: 'degraded',
      reasons: ['webhooks_missing'],
    });
    expect(north.deliveries).toMatchObject({ byPoll: 3, byWebhook: 0 });
    const south = await receiver.health({ account: 'south' });
    expect(south).toMatchObject({ account: 'south', status: 'ok', reasons: [] });
    expect(south.webhooks.accepted).toBe(3);
    expect((await receiver.health()).reasons).not.toContain('webhooks_missing');
    expect(alerts).toEqual([{ code: 'webhooks_missing', account: 'north' }]);
    await expect(receiver.health({ account: 'not an id' })).rejects.toThrow(/1 to 64/);
  });
});

describe('the options of several accounts', () => {
  const account: AccountConfig = {
    secret: SECRETS.north,
    client: { apiKey: KEYS.north, baseUrl: 'http://127.0.0.1:9' },
  };

  it('refuses secret or client beside accounts, and accounts without token keys of their own', () => {
    expect(() =>
      createReceiver({ accounts: { north: account }, secret: 'x', tokenKeys: [TOKEN_KEY] }),
    ).toThrow(/"accounts" and "secret" exclude each other/);
    expect(() => createReceiver({ accounts: { north: account } })).toThrow(/FACEVERIFY_TOKEN_KEYS/);
    expect(() => createReceiver({ accounts: {}, tokenKeys: [TOKEN_KEY] })).toThrow(
      ConfigurationError,
    );
    expect(() =>
      createReceiver({ accounts: { 'no spaces': account }, tokenKeys: [TOKEN_KEY] }),
    ).toThrow(/1 to 64 letters/);
  });

  it('asks for an account where there are several, and refuses one where there is one', async () => {
    const several = createReceiver({ accounts: { north: account }, tokenKeys: [TOKEN_KEY] });
    await expect(several.startVerification({ externalUserId: 'u' })).rejects.toThrow(
      /needs `account`/,
    );
    await expect(several.track('tok', 'u', { account: 'west' })).rejects.toThrow(
      /no account "west"/,
    );
    const one = createReceiver({ secret: SECRETS.north, client: account.client as never });
    await expect(one.track('tok', 'u', { account: 'north' })).rejects.toThrow(
      /for a Receiver of several accounts/,
    );
  });
});

describe('accounts resolved on demand', () => {
  const configOf = (id: string): AccountConfig => ({
    secret: `whsec_${id}_0123456789abcdef`,
    client: { apiKey: `fv_test_${id}`, baseUrl: 'http://127.0.0.1:9' },
  });
  function directory(
    resolve: (id: string) => AccountConfig | undefined | Promise<AccountConfig | undefined>,
    limits: { cacheSize?: number; refreshAfterMs?: number; maxResolvesPerMinute?: number } = {},
  ) {
    const clock = createTestClock(Date.UTC(2030, 0, 1));
    const built: Client[] = [];
    const accounts = new AccountDirectory(
      { resolve, ...limits },
      (options) => {
        const client = createClient({ ...options, clock, logger: false });
        built.push(client);
        return client;
      },
      clock,
      createLog(false),
    );
    return { accounts, clock, built };
  }

  it('1,000 accounts used once each keep at most cacheSize in memory, each resolved once per use', async () => {
    const calls: string[] = [];
    const { accounts } = directory(
      (id) => {
        calls.push(id);
        return configOf(id);
      },
      { cacheSize: 100 },
    );
    for (let index = 0; index < 1000; index++) {
      const account = await accounts.get(`tenant-${index}`);
      expect(account?.id).toBe(`tenant-${index}`);
      expect(accounts.cached).toBeLessThanOrEqual(100);
    }
    expect(calls).toHaveLength(1000);
    // The 100 most recent stay: used again, they cost no call.
    for (let index = 900; index < 1000; index++) await accounts.get(`tenant-${index}`);
    expect(calls).toHaveLength(1000);
    await accounts.get('tenant-0');
    expect(calls).toHaveLength(1001);
  });

  it('concurrent lookups of one id make one call', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { accounts } = directory(async (id) => {
      calls += 1;
      await gate;
      return configOf(id);
    });
    const lookups = Array.from({ length: 50 }, () => accounts.find('acme'));
    release();
    const found = await Promise.all(lookups);
    expect(calls).toBe(1);
    expect(new Set(found).size).toBe(1);
  });

  it('ids a request names are resolved at most maxResolvesPerMinute times a minute; unknown ids are cached too', async () => {
    const calls: string[] = [];
    const { accounts, clock } = directory(
      (id) => {
        calls.push(id);
        return undefined;
      },
      { maxResolvesPerMinute: 5 },
    );
    const answers = [];
    for (let index = 0; index < 20; index++) answers.push(await accounts.find(`made-up-${index}`));
    expect(calls).toHaveLength(5);
    expect(answers.slice(0, 5)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(answers.slice(5).every((answer) => answer === 'busy')).toBe(true);
    // An unknown id already asked about costs nothing again.
    expect(await accounts.find('made-up-0')).toBeUndefined();
    expect(calls).toHaveLength(5);
    // Malformed ids never reach the resolver.
    expect(await accounts.find('../etc/passwd')).toBeUndefined();
    // The Receiver's own lookups (a record's account) are never limited.
    expect(await accounts.get('made-up-19')).toBeUndefined();
    expect(calls).toHaveLength(6);
    await clock.advance(60_000);
    expect(await accounts.find('made-up-6')).toBeUndefined();
    expect(calls).toHaveLength(7);
  });

  it('after refreshAfterMs an account is resolved again in the background: a rotated secret arrives, the client and its pacing stay', async () => {
    let secret = 'whsec_acme_old_0123456789abcdef';
    const { accounts, clock, built } = directory(
      () => ({ secret, client: { apiKey: 'fv_test_acme', baseUrl: 'http://127.0.0.1:9' } }),
      { refreshAfterMs: 300_000 },
    );
    const first = await accounts.get('acme');
    secret = 'whsec_acme_new_0123456789abcdef';
    await clock.advance(300_000);
    // Served from the cache while the refresh runs.
    expect(await accounts.get('acme')).toBe(first);
    let refreshed = await accounts.get('acme');
    while (refreshed === first) {
      await new Promise((resolve) => setImmediate(resolve));
      refreshed = await accounts.get('acme');
    }
    expect(refreshed?.secrets.map((labeled) => labeled.secret)).toEqual([secret]);
    expect(refreshed?.client).toBe(first?.client);
    expect(built).toHaveLength(1);
  });

  it('a Receiver with a resolver answers 503 account_unavailable while the resolver fails, and serves once it answers', async () => {
    let failing = true;
    const receiver: Receiver = createReceiver({
      accounts: {
        resolve: (id) => {
          if (failing) throw new Error('secret manager unreachable');
          return configOf(id);
        },
      },
      tokenKeys: [TOKEN_KEY],
      untrackedWebhooks: 'deliver',
      logger: false,
    });
    const errors: unknown[] = [];
    receiver.on('error', (_error, context) => errors.push(context.stage));
    const delivered: VerificationCompletedEvent[] = [];
    receiver.on('verification.completed', (event) => {
      delivered.push(event);
    });
    const webhook = await signedDelivery(fixturePayload({ external_user_id: 'gus' }), {
      secret: configOf('acme').secret as string,
    });
    const refused = await receiver.receive({ ...webhook, account: 'acme' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('60');
    expect(errors).toEqual(['account']);
    failing = false;
    const accepted = await receiver.receive({ ...webhook, account: 'acme' });
    expect(accepted.status).toBe(200);
    expect(errors).toEqual(['account']);
    expect(delivered.map((event) => event.account)).toEqual(['acme']);
  });
});
