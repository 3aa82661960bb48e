import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createReceiver,
  MemoryStore,
  type ReceiverAlert,
  type ReceiverOptions,
  StartLimitError,
  TimeoutError,
} from '../../../src/index.js';
import type { ClaimStartOptions, ClaimStartOutcome } from '../../../src/store/index.js';
import { createTestClock } from '../../../src/testing/index.js';

// The service's side, on loopback: counts each POST /v1/verify and answers it, at once, after
// the test releases it (`hold`), or with a 503 (`fail`).
let server: Server;
let baseUrl: string;
let created: { externalUserId: string; token: string }[] = [];
let held: (() => void)[] = [];
let mode: 'answer' | 'hold' | 'fail' = 'answer';
let arrived: (() => void) | undefined;
// How long the service says each new session's link lives.
let linkLifeMs = 600_000;

function answer(req: IncomingMessage, res: ServerResponse, body: string) {
  if (mode === 'fail') {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: false, error: 'service_unavailable', message: 'down' }));
    return;
  }
  const externalUserId = JSON.parse(body).external_user_id as string;
  const token = `tok_${created.length + 1}_${Math.random().toString(36).slice(2)}`;
  created.push({ externalUserId, token });
  const send = () => {
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        token,
        verify_url: `https://verify.example.test/s/${token}`,
        status: 'pending',
        external_user_id: externalUserId,
        expires_at: new Date(Date.now() + linkLifeMs).toISOString(),
      }),
    );
  };
  if (mode === 'hold') held.push(send);
  else send();
  arrived?.();
  void req;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => answer(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  created = [];
  held = [];
  mode = 'answer';
  arrived = undefined;
  linkLifeMs = 600_000;
});

/** A MemoryStore that tells each claim's outcome: the instances' shared store. */
class WatchedStore extends MemoryStore {
  readonly outcomes: ClaimStartOutcome['claim'][] = [];
  onClaim: (() => void) | undefined;
  override async claimStart(options: ClaimStartOptions): Promise<ClaimStartOutcome> {
    const outcome = await super.claimStart(options);
    this.outcomes.push(outcome.claim);
    this.onClaim?.();
    return outcome;
  }
}

function instance(store: MemoryStore, options: Partial<ReceiverOptions> = {}) {
  return createReceiver({
    secret: 'whsec_starts_test_secret_0123456789',
    client: { apiKey: 'fv_test_starts', baseUrl, maxRetries: 0 },
    store,
    logger: false,
    ...options,
  });
}

const until = (condition: () => boolean, onChange: (notify: () => void) => void) =>
  new Promise<void>((resolve) => {
    if (condition()) resolve();
    else
      onChange(() => {
        if (condition()) resolve();
      });
  });

describe('startVerification: one session per need', () => {
  it('hands the open session out again, the same token and link, with one POST /v1/verify', async () => {
    const receiver = instance(new MemoryStore());
    const first = await receiver.startVerification({ externalUserId: 'ada' });
    const again = await receiver.startVerification({ externalUserId: 'ada' });
    expect(first.reused).toBe(false);
    expect(again).toEqual({ ...first, reused: true });
    expect(created).toHaveLength(1);
    expect(first.expiresAt.getTime()).toBeGreaterThan(Date.now());
  });

  it('keeps purposes and users apart, and creates a fresh one when asked', async () => {
    const receiver = instance(new MemoryStore());
    const signup = await receiver.startVerification({ externalUserId: 'ada', purpose: 'signup' });
    const payout = await receiver.startVerification({ externalUserId: 'ada', purpose: 'payout' });
    const other = await receiver.startVerification({ externalUserId: 'bob', purpose: 'signup' });
    const fresh = await receiver.startVerification({
      externalUserId: 'ada',
      purpose: 'signup',
      fresh: true,
    });
    expect(new Set([signup.token, payout.token, other.token, fresh.token]).size).toBe(4);
    expect(created).toHaveLength(4);
    // The fresh one is what the need names from now on.
    const after = await receiver.startVerification({ externalUserId: 'ada', purpose: 'signup' });
    expect(after).toEqual({ ...fresh, reused: true });
  });

  it('50 concurrent starts of one user on 3 instances sharing a store make one POST, and all get its link', async () => {
    const store = new WatchedStore();
    const instances = [instance(store), instance(store), instance(store)];
    mode = 'hold';
    const starts = Array.from({ length: 50 }, (_, index) =>
      instances[index % 3]!.startVerification({ externalUserId: 'ada' }),
    );
    // Held until the other two instances were told the start is another's (`busy`).
    await until(
      () => created.length === 1 && store.outcomes.filter((o) => o === 'busy').length >= 2,
      (notify) => {
        arrived = notify;
        store.onClaim = notify;
      },
    );
    for (const send of held) send();
    const started = await Promise.all(starts);
    expect(created).toHaveLength(1);
    expect(new Set(started.map((s) => s.verifyUrl))).toEqual(
      new Set([`https://verify.example.test/s/${created[0]!.token}`]),
    );
    expect(started.filter((s) => !s.reused).length).toBeGreaterThanOrEqual(1);
    // One claim per instance at a time: the others in the process share its promise.
    expect(store.outcomes.filter((o) => o === 'granted')).toHaveLength(1);
  });

  it('a start whose session could not be tracked (the store failed) ends its claim: the retry goes ahead at once', async () => {
    class FailingOnce extends WatchedStore {
      failed = false;
      override async insert(options: Parameters<MemoryStore['insert']>[0]) {
        if (!this.failed && options.start) {
          this.failed = true;
          throw new Error('the store is away');
        }
        return super.insert(options);
      }
    }
    const store = new FailingOnce();
    const receiver = instance(store);
    await expect(receiver.startVerification({ externalUserId: 'ada' })).rejects.toThrow(
      'the store is away',
    );
    const retried = await receiver.startVerification({ externalUserId: 'ada' });
    expect(retried.reused).toBe(false);
    expect(store.outcomes).toEqual(['granted', 'granted']);
    expect(created).toHaveLength(2);
  });

  it('creates a new session once the open one has less life left than reuseMinLifetimeMs', async () => {
    const receiver = instance(new MemoryStore(), {
      sessionLifetimeMs: 2_000,
      starts: { reuseMinLifetimeMs: 1_999 },
    });
    const first = await receiver.startVerification({ externalUserId: 'ada' });
    // Reused at once only if not a millisecond has passed; either way, never past its life.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await receiver.startVerification({ externalUserId: 'ada' });
    expect(second.token).not.toBe(first.token);
    expect(created).toHaveLength(2);
  });

  it('does not hand out a link the service says expires within reuseMinLifetimeMs, though the Receiver would keep the session longer', async () => {
    // The service's hosted token lives 4 min; the Receiver keeps a session 30 min.
    linkLifeMs = 4 * 60_000;
    const receiver = instance(new MemoryStore());
    const first = await receiver.startVerification({ externalUserId: 'ada' });
    const second = await receiver.startVerification({ externalUserId: 'ada' });
    expect(second.reused).toBe(false);
    expect(second.token).not.toBe(first.token);
    expect(created).toHaveLength(2);
  });

  it('keeps the verify URL out of the store in clear', async () => {
    const store = new MemoryStore();
    const receiver = instance(store);
    const { verifyUrl, token } = await receiver.startVerification({ externalUserId: 'ada' });
    const dump = JSON.stringify([
      ...(store as unknown as { records: Map<string, unknown> }).records,
    ]);
    expect(dump).not.toContain(verifyUrl);
    expect(dump).not.toContain(token);
    expect(dump).not.toContain('ada');
  });
});

describe('startVerification: bounded cost', () => {
  it('refuses the user past perUserPerDay with StartLimitError, sending nothing; reuse is free', async () => {
    const receiver = instance(new MemoryStore(), { starts: { perUserPerDay: 2 } });
    await receiver.startVerification({ externalUserId: 'ada', purpose: 'a' });
    await receiver.startVerification({ externalUserId: 'ada', purpose: 'a' });
    await receiver.startVerification({ externalUserId: 'ada', purpose: 'b' });
    expect(created).toHaveLength(2);
    const refused = await receiver
      .startVerification({ externalUserId: 'ada', purpose: 'c' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StartLimitError);
    const error = refused as StartLimitError;
    expect(error.code).toBe('start_limit_reached');
    expect(error.scope).toBe('user');
    expect(error.limit).toBe(2);
    expect(error.retryAt.getTime() % 86_400_000).toBe(0);
    expect(error.retryAt.getTime()).toBeGreaterThan(Date.now());
    expect(error.message).toContain('starts.perUserPerDay');
    expect(error.message).not.toContain('ada');
    expect(created).toHaveLength(2);
    // Another user is counted apart.
    await receiver.startVerification({ externalUserId: 'bob' });
    expect(created).toHaveLength(3);
  });

  it('refuses the account past perAccountPerDay, across instances', async () => {
    const store = new MemoryStore();
    const a = instance(store, { starts: { perAccountPerDay: 3 } });
    const b = instance(store, { starts: { perAccountPerDay: 3 } });
    await a.startVerification({ externalUserId: 'u1' });
    await b.startVerification({ externalUserId: 'u2' });
    await a.startVerification({ externalUserId: 'u3' });
    const refused = await b
      .startVerification({ externalUserId: 'u4' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StartLimitError);
    expect((refused as StartLimitError).scope).toBe('account');
    expect((refused as StartLimitError).message).toContain('starts.perAccountPerDay');
    expect(created).toHaveLength(3);
  });

  it('counts each account, and each user of each account, apart on a Receiver of several accounts', async () => {
    const client = { apiKey: 'fv_test_starts', baseUrl, maxRetries: 0 };
    const receiver = createReceiver({
      accounts: {
        acme: { secret: 'whsec_starts_acme_0123456789abcdef', client },
        globex: { secret: 'whsec_starts_globex_0123456789abcd', client },
      },
      store: new MemoryStore(),
      logger: false,
      tokenKeys: ['starts-test-token-key-0123456789abcdefABCDEF'],
      starts: { perUserPerDay: 1, perAccountPerDay: 2 },
    });
    const acme = await receiver.startVerification({ externalUserId: 'ada', account: 'acme' });
    // The same user id in another account is another user, with a session of her own.
    const globex = await receiver.startVerification({ externalUserId: 'ada', account: 'globex' });
    expect(globex.token).not.toBe(acme.token);
    const refused = await receiver
      .startVerification({ externalUserId: 'ada', account: 'acme', fresh: true })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StartLimitError);
    expect((refused as StartLimitError).scope).toBe('user');
    expect((refused as StartLimitError).message).toContain('account "acme"');
    await receiver.startVerification({ externalUserId: 'bob', account: 'acme' });
    const accountRefused = await receiver
      .startVerification({ externalUserId: 'carol', account: 'acme' })
      .catch((error: unknown) => error);
    expect((accountRefused as StartLimitError).scope).toBe('account');
    // globex has spent one of its own two.
    await receiver.startVerification({ externalUserId: 'carol', account: 'globex' });
    expect(created).toHaveLength(4);
  });

  it('raises start_ambiguous when a start fails after its request may have reached the service, and lets the next start go ahead', async () => {
    const alerts: ReceiverAlert[] = [];
    const receiver = instance(new MemoryStore());
    receiver.on('alert', (alert) => {
      alerts.push(alert);
    });
    mode = 'fail';
    await expect(receiver.startVerification({ externalUserId: 'ada' })).rejects.toMatchObject({
      serviceStatus: 503,
    });
    expect(alerts.map((alert) => alert.code)).toEqual(['start_ambiguous']);
    expect(alerts[0]!.message).toContain('may have created a session');
    mode = 'answer';
    const next = await receiver.startVerification({ externalUserId: 'ada' });
    expect(next.reused).toBe(false);
    expect(created).toHaveLength(1);
  });

  it('counts a timed-out start as ambiguous too', async () => {
    const alerts: string[] = [];
    const receiver = createReceiver({
      secret: 'whsec_starts_test_secret_0123456789',
      client: { apiKey: 'fv_test_starts', baseUrl, maxRetries: 0, timeoutMs: 50 },
      store: new MemoryStore(),
      logger: false,
    });
    receiver.on('alert', (alert) => {
      alerts.push(alert.code);
    });
    mode = 'hold';
    await expect(receiver.startVerification({ externalUserId: 'ada' })).rejects.toBeInstanceOf(
      TimeoutError,
    );
    for (const send of held) send();
    expect(alerts).toEqual(['start_ambiguous']);
    // The service did create it: the emulator of a real service would now hold one unseen.
    expect(created).toHaveLength(1);
  });

  it('raises starts_surging when an hour runs far above yesterday, naming the fix', async () => {
    const alerts: ReceiverAlert[] = [];
    // The client paces starts at 60 a minute: a test clock runs the two minutes 100 take.
    const clock = createTestClock();
    const receiver = instance(new MemoryStore(), { clock, starts: { perUserPerDay: 1 } });
    receiver.on('alert', (alert) => {
      alerts.push(alert);
    });
    for (let user = 0; user < 100; user++) {
      let done = false;
      const start = receiver
        .startVerification({ externalUserId: `made-up-${user}` })
        .finally(() => {
          done = true;
        });
      while (!done) await clock.advance(1_000);
      await start;
    }
    const surging = alerts.filter((alert) => alert.code === 'starts_surging');
    expect(surging).toHaveLength(1);
    expect(surging[0]!.message).toContain('100 sessions were started this hour');
    expect(surging[0]!.message).toContain('starts.perAccountPerDay');
  });
});
