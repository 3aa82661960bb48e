import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createReceiver,
  type Logger,
  MemoryStore,
  type ReceiverOptions,
  type ReceiverTelemetry,
  type VerificationCompletedEvent,
  type VerificationSupersededEvent,
} from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';
import { type ScriptedServer, startScriptedServer } from '../client/scripted-server.js';

// A user fails a first session, starts a second and passes it; then the first session's result
// arrives late, by every path a result takes. Each event says when its session started and
// whether a newer one exists; with `supersededResults: 'skip'` the older result never reaches
// the handlers, and is settled, logged, counted and passed to `verification.superseded`.

const SECRET = 'whsec_superseded_0123456789';
const USER = 'user_superseded';
const MINUTE = 60_000;
const REPLAY_WINDOW_MS = 30 * MINUTE;

let service: ScriptedServer | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

type Outcome = 'verified' | 'failed';

const { event: _e, extra: _x, ...VERIFIED } = fixturePayload({ external_user_id: USER });
const FAILED = { ...VERIFIED, status: 'failed' as const, livenessPassed: false, risk: 'high' };

/**
 * A Receiver on a MemoryStore whose service answers each token's poll with the outcome the
 * test completed it with (pending until then); what its handlers, its log and its telemetry saw.
 */
async function setUp(
  options: Partial<ReceiverOptions> | ((serviceUrl: string) => Partial<ReceiverOptions>) = {},
) {
  const clock = createTestClock(Date.UTC(2030, 0, 1));
  const outcomes = new Map<string, Outcome>();
  service = await startScriptedServer((request) => {
    const token = decodeURIComponent(request.url.split('/').pop() ?? '');
    const status = outcomes.get(token) ?? 'pending';
    const result = status === 'verified' ? VERIFIED : status === 'failed' ? FAILED : undefined;
    return {
      status: 200,
      json: { token, status, external_user_id: USER, ...(result ? { result } : {}) },
    };
  }, clock.now);
  const seen = {
    completed: [] as VerificationCompletedEvent[],
    superseded: [] as VerificationSupersededEvent[],
    warnings: [] as { message: string; fields: unknown }[],
    counted: [] as [string, string | undefined][],
  };
  const logger: Logger = {
    warn: (message, fields) => seen.warnings.push({ message, fields }),
    error: () => undefined,
  };
  const telemetry: ReceiverTelemetry = {
    attach: () => undefined,
    span: (_name, work) => work(),
    webhookAnswered: () => undefined,
    delivered: () => undefined,
    handlerRan: () => undefined,
    undeliverable: () => undefined,
    superseded: (source, account) => {
      seen.counted.push([source, account]);
    },
    polled: () => undefined,
    rateLimitWaited: () => undefined,
  };
  const store = new MemoryStore();
  const extra = typeof options === 'function' ? options(service.url) : options;
  const receiver = createReceiver({
    // A Receiver of several accounts has each account's secret and client instead.
    ...(extra.accounts
      ? {}
      : { secret: SECRET, client: { apiKey: 'fv_test_superseded', baseUrl: service.url } }),
    store,
    clock,
    logger,
    telemetry,
    replayWindowMs: REPLAY_WINDOW_MS,
    pollScheduleMs: [MINUTE],
    ...extra,
  });
  receiver.on('error', () => undefined);
  receiver.on('verification.completed', (event) => {
    seen.completed.push(event);
  });
  receiver.on('verification.superseded', (event) => {
    seen.superseded.push(event);
  });
  /** The first session, then (a minute later) the second one, of the same user. */
  const twoSessions = async () => {
    await receiver.track('tok_first', USER);
    const firstAt = clock.now();
    await clock.advance(MINUTE);
    await receiver.track('tok_second', USER);
    return { firstAt, secondAt: clock.now() };
  };
  const complete = (token: string, outcome: Outcome) => outcomes.set(token, outcome);
  /** The first session's webhook, as the service sends it: it names no session, only the user. */
  const lateWebhook = () =>
    signedDelivery(fixturePayload({ ...FAILED, event: 'verification.completed', extra: {} }), {
      secret: SECRET,
    });
  return { receiver, clock, store, seen, twoSessions, complete, lateWebhook };
}

describe('every result says when its session started and whether a newer one exists', () => {
  it("by default both are delivered: the newer with superseded false, the older's true", async () => {
    const { receiver, clock, seen, twoSessions, complete } = await setUp();
    const { firstAt, secondAt } = await twoSessions();
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    complete('tok_first', 'failed');
    await clock.advance(MINUTE);
    expect(await receiver.sweep()).toMatchObject({ delivered: 1, superseded: 0 });

    expect(seen.completed.map((event) => [event.sessionToken, event.superseded])).toEqual([
      ['tok_second', false],
      ['tok_first', true],
    ]);
    expect(seen.completed[0]!.sessionStartedAt).toEqual(new Date(secondAt));
    expect(seen.completed[1]!.sessionStartedAt).toEqual(new Date(firstAt));
    expect(seen.superseded).toEqual([]);
    // The return page of the first session knows it too.
    expect(await receiver.waitForResult('tok_first')).toMatchObject({
      state: 'completed',
      superseded: true,
    });
    expect(await receiver.waitForResult('tok_second')).toMatchObject({
      state: 'completed',
      superseded: false,
    });
    expect(await receiver.confirm('tok_first')).toMatchObject({
      status: 'failed',
      superseded: true,
    });
  });

  it('the newest session is not superseded while an older one is still open', async () => {
    const { receiver, seen, twoSessions, complete } = await setUp();
    await twoSessions();
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    expect(seen.completed[0]).toMatchObject({ sessionToken: 'tok_second', superseded: false });
  });

  it('a result matched to no tracked session has no sessionStartedAt and is never superseded', async () => {
    const { receiver, seen, twoSessions, lateWebhook } = await setUp({
      untrackedWebhooks: 'deliver',
    });
    await twoSessions();
    await receiver.forgetUser(USER);
    await receiver.track('tok_third', 'someone_else');
    await receiver.receive(await lateWebhook());
    expect(seen.completed).toHaveLength(1);
    expect(seen.completed[0]!.sessionStartedAt).toBeUndefined();
    expect(seen.completed[0]!.superseded).toBe(false);
  });
});

describe('a newer session is the same user of the same account', () => {
  it("another account's session of the same user id supersedes nothing", async () => {
    const { receiver, clock, seen, complete } = await setUp((baseUrl) => {
      const account = { secret: SECRET, client: { apiKey: 'fv_test_superseded', baseUrl } };
      return {
        tokenKeys: ['superseded-token-key-0123456789abcdef'],
        accounts: { acme: account, globex: account },
        supersededResults: 'skip',
      };
    });
    await receiver.track('tok_first', USER, { account: 'acme' });
    await clock.advance(MINUTE);
    await receiver.track('tok_second', USER, { account: 'globex' });
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    complete('tok_first', 'failed');
    await receiver.confirm('tok_first');
    expect(seen.completed.map((event) => [event.account, event.superseded])).toEqual([
      ['globex', false],
      ['acme', false],
    ]);
    expect(seen.superseded).toEqual([]);
  });
});

describe("supersededResults: 'skip', by every path a result arrives by", () => {
  /** What every skipped result must come to: seen by nobody but `verification.superseded`. */
  function expectSkipped(
    seen: Awaited<ReturnType<typeof setUp>>['seen'],
    source: 'webhook' | 'poll' | 'confirm',
    firstAt: number,
  ) {
    expect(seen.completed.map((event) => event.sessionToken)).toEqual(['tok_second']);
    expect(seen.superseded).toHaveLength(1);
    const [{ event }] = seen.superseded as [VerificationSupersededEvent];
    expect(event).toMatchObject({ superseded: true, data: { status: 'failed' } });
    expect(event.sessionStartedAt).toEqual(new Date(firstAt));
    expect(seen.counted).toEqual([[source, undefined]]);
    // Logged at warn, a level that reaches an operator by default, with no personal data.
    const lines = seen.warnings.filter(({ message }) => message.includes('newer session'));
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines[0])).not.toContain(USER);
    expect(JSON.stringify(lines[0])).not.toContain('failed');
  }

  it('webhook: answered superseded, settled as done; a copy of it is a duplicate', async () => {
    const { receiver, clock, seen, twoSessions, complete, lateWebhook } = await setUp({
      supersededResults: 'skip',
      confirmWebhooks: false,
    });
    const { firstAt } = await twoSessions();
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    const late = await lateWebhook();
    const answer = await receiver.receive(late);
    expect(JSON.parse(answer.body)).toEqual({ received: true, superseded: true });
    expectSkipped(seen, 'webhook', firstAt);
    expect(await receiver.waitForResult('tok_first')).toMatchObject({
      state: 'superseded',
      result: { status: 'failed' },
      source: 'webhook',
    });
    // Never retried, never a dead letter: nothing is due, whatever time passes.
    await clock.advance(REPLAY_WINDOW_MS / 2);
    expect(await receiver.sweep()).toMatchObject({ leased: 0 });
    expect((await receiver.deadLetters.list()).deadLetters).toEqual([]);
    const again = await receiver.receive(late);
    expect(JSON.parse(again.body)).toMatchObject({ duplicate: true });
    expect(seen.superseded).toHaveLength(1);
  });

  it('webhook confirmed with the service: the confirmed result is skipped', async () => {
    const { receiver, seen, twoSessions, complete, lateWebhook } = await setUp({
      supersededResults: 'skip',
    });
    const { firstAt } = await twoSessions();
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    complete('tok_first', 'failed');
    const answer = await receiver.receive(await lateWebhook());
    expect(JSON.parse(answer.body)).toEqual({ received: true, superseded: true });
    expectSkipped(seen, 'webhook', firstAt);
    expect(seen.superseded[0]!.event.confirmed).toBe(true);
  });

  it('poll: the sweep settles it without the handlers and counts it', async () => {
    const { receiver, clock, seen, twoSessions, complete } = await setUp({
      supersededResults: 'skip',
    });
    const { firstAt } = await twoSessions();
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    complete('tok_first', 'failed');
    await clock.advance(MINUTE);
    expect(await receiver.sweep()).toMatchObject({ leased: 1, superseded: 1, delivered: 0 });
    expectSkipped(seen, 'poll', firstAt);
    expect(await receiver.waitForResult('tok_first')).toMatchObject({ state: 'superseded' });
  });

  it('confirm(): the return page of the older session is told it is superseded', async () => {
    const { receiver, seen, twoSessions, complete } = await setUp({
      supersededResults: 'skip',
    });
    const { firstAt } = await twoSessions();
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    complete('tok_first', 'failed');
    expect(await receiver.confirm('tok_first')).toEqual({
      status: 'failed',
      result: expect.objectContaining({ status: 'failed' }),
      superseded: true,
    });
    expectSkipped(seen, 'confirm', firstAt);
    // Asked again, the closed record answers the same.
    expect(await receiver.confirm('tok_first')).toMatchObject({ superseded: true });
  });

  it('the older result is skipped while the newer session is still open', async () => {
    // The newer session is still open (never completed): the newest session decides all the
    // same, and the older result is reported, not delivered.
    const { receiver, seen, twoSessions, complete } = await setUp({
      supersededResults: 'skip',
    });
    const { firstAt } = await twoSessions();
    complete('tok_first', 'failed');
    await receiver.confirm('tok_first');
    expect(seen.completed).toEqual([]);
    expect(seen.superseded.map(({ event }) => event.sessionStartedAt)).toEqual([new Date(firstAt)]);
  });

  it('a dead letter redelivered after a newer session was started is skipped, and no dead letter any more', async () => {
    const { receiver, clock, seen, complete } = await setUp({
      supersededResults: 'skip',
      maxDeliveryAttempts: 1,
    });
    let failing = true;
    receiver.on('verification.completed', () => {
      if (failing) throw new Error('the users table is locked');
    });
    await receiver.track('tok_first', USER);
    const firstAt = clock.now();
    complete('tok_first', 'failed');
    await receiver.confirm('tok_first');
    const [letter] = (await receiver.deadLetters.list()).deadLetters;
    expect(letter).toBeDefined();
    failing = false;
    seen.completed.length = 0;
    await clock.advance(MINUTE);
    await receiver.track('tok_second', USER);
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    expect(await receiver.deadLetters.redeliver(letter!.key)).toBe(true);
    expect(await receiver.sweep()).toMatchObject({ leased: 1, superseded: 1 });
    expect(seen.completed.map((event) => event.sessionToken)).toEqual(['tok_second']);
    expect(seen.superseded).toHaveLength(1);
    expect(seen.superseded[0]!.event.sessionStartedAt).toEqual(new Date(firstAt));
    expect((await receiver.deadLetters.list()).deadLetters).toEqual([]);
  });

  it('a newer session delivered as a dead letter again still supersedes the older one', async () => {
    // Redelivered, its record holds no token any more: kept all the same once delivered.
    const { receiver, seen, twoSessions, complete } = await setUp({
      supersededResults: 'skip',
      maxDeliveryAttempts: 1,
    });
    let failing = true;
    receiver.on('verification.completed', () => {
      if (failing) throw new Error('the users table is locked');
    });
    await twoSessions();
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    const [letter] = (await receiver.deadLetters.list()).deadLetters;
    failing = false;
    expect(await receiver.deadLetters.redeliver(letter!.key)).toBe(true);
    expect(await receiver.sweep()).toMatchObject({ delivered: 1 });
    seen.completed.length = 0;
    complete('tok_first', 'failed');
    await receiver.confirm('tok_first');
    expect(seen.completed).toEqual([]);
    expect(seen.superseded).toHaveLength(1);
  });

  it('a handler retry of the older result is skipped once a newer session exists', async () => {
    const { receiver, clock, seen, complete } = await setUp({
      supersededResults: 'skip',
      retryScheduleMs: [MINUTE],
    });
    let failing = true;
    receiver.on('verification.completed', () => {
      if (failing) throw new Error('the users table is locked');
    });
    await receiver.track('tok_first', USER);
    complete('tok_first', 'failed');
    await receiver.confirm('tok_first');
    failing = false;
    seen.completed.length = 0;
    await clock.advance(1_000);
    await receiver.track('tok_second', USER);
    await clock.advance(MINUTE);
    expect(await receiver.sweep()).toMatchObject({ superseded: 1, delivered: 0 });
    expect(seen.completed).toEqual([]);
    expect(seen.superseded).toHaveLength(1);
  });

  it('past the newer record\'s retention, "superseded" is no longer known', async () => {
    // The documented limit: the store keeps a closed record for replayWindowMs, and what it
    // no longer holds it cannot compare with.
    const { receiver, clock, seen, complete } = await setUp({
      supersededResults: 'skip',
      sessionLifetimeMs: 3 * REPLAY_WINDOW_MS,
      pollScheduleMs: [2 * REPLAY_WINDOW_MS],
    });
    await receiver.track('tok_first', USER);
    await clock.advance(MINUTE);
    await receiver.track('tok_second', USER);
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    await clock.advance(REPLAY_WINDOW_MS + MINUTE);
    complete('tok_first', 'failed');
    await receiver.confirm('tok_first');
    expect(seen.completed.map((event) => [event.sessionToken, event.superseded])).toEqual([
      ['tok_second', false],
      ['tok_first', false],
    ]);
  });

  it('a verification.superseded handler that throws is reported, and the result stays settled', async () => {
    const { receiver, clock, twoSessions, complete } = await setUp({
      supersededResults: 'skip',
    });
    const errors: unknown[] = [];
    receiver.on('error', (_error, context) => {
      errors.push(context.stage);
    });
    receiver.on('verification.superseded', () => {
      throw new Error('audit log unavailable');
    });
    await twoSessions();
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    complete('tok_first', 'failed');
    await receiver.confirm('tok_first');
    expect(errors).toEqual(['superseded-handler']);
    await clock.advance(REPLAY_WINDOW_MS / 2);
    expect(await receiver.sweep()).toMatchObject({ leased: 0 });
  });
});

describe('a poll tells superseded in one light store call', () => {
  const OLD_KEY = 'superseded-old-token-key-0123456789ab';
  const NEW_KEY = 'superseded-new-token-key-0123456789ab';

  /** A MemoryStore whose `hasNewerSession` and `findByUser` calls are counted. */
  function countingStore(withNewer: boolean) {
    const store = new MemoryStore();
    const calls = { hasNewerSession: [] as string[][], findByUser: 0 };
    const hasNewerSession = store.hasNewerSession.bind(store);
    const findByUser = store.findByUser.bind(store);
    const counted = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'hasNewerSession') {
          if (!withNewer) return undefined;
          return (options: Parameters<MemoryStore['hasNewerSession']>[0]) => {
            calls.hasNewerSession.push([...options.externalUserIds]);
            return hasNewerSession(options);
          };
        }
        if (property === 'findByUser') {
          return (options: Parameters<MemoryStore['findByUser']>[0]) => {
            calls.findByUser++;
            return findByUser(options);
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    return { store: counted, calls };
  }

  it('during a token-key rotation, a newer session under the new key supersedes one under the old', async () => {
    const { store, calls } = countingStore(true);
    const { receiver, clock, complete } = await setUp({ store, tokenKeys: [OLD_KEY] });
    await receiver.track('tok_first', USER);
    await clock.advance(MINUTE);
    // The next step of the rotation: the new key first, so the user's newer record is kept
    // under the new key's hash of the id, the older one under the old key's.
    const rotated = createReceiver({
      secret: SECRET,
      client: { apiKey: 'fv_test_superseded', baseUrl: service!.url },
      store,
      clock,
      tokenKeys: [NEW_KEY, OLD_KEY],
      pollScheduleMs: [MINUTE],
    });
    rotated.on('error', () => undefined);
    await rotated.track('tok_second', USER);
    complete('tok_first', 'failed');
    calls.findByUser = 0;
    expect(await rotated.confirm('tok_first')).toMatchObject({ superseded: true });
    // One call, naming the user under each token key (the signing secret beside them keys
    // nothing, so no session is hashed under it), and no lookup of the user's records.
    expect(calls.hasNewerSession).toHaveLength(1);
    expect(new Set(calls.hasNewerSession[0]).size).toBe(2);
    expect(calls.findByUser).toBe(0);
  });

  it('the newest session is told not superseded by the same call', async () => {
    const { store, calls } = countingStore(true);
    const { receiver, seen, twoSessions, complete } = await setUp({ store });
    await twoSessions();
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    expect(seen.completed[0]).toMatchObject({ sessionToken: 'tok_second', superseded: false });
    expect(calls.hasNewerSession).toHaveLength(1);
  });

  it('a store without hasNewerSession: the user is looked up instead, with the same answer', async () => {
    const { store, calls } = countingStore(false);
    const { receiver, clock, seen, twoSessions, complete } = await setUp({ store });
    await twoSessions();
    complete('tok_second', 'verified');
    await receiver.confirm('tok_second');
    complete('tok_first', 'failed');
    await clock.advance(MINUTE);
    calls.findByUser = 0;
    expect(await receiver.sweep()).toMatchObject({ delivered: 1 });
    expect(seen.completed.map((event) => [event.sessionToken, event.superseded])).toEqual([
      ['tok_second', false],
      ['tok_first', true],
    ]);
    expect(calls.findByUser).toBeGreaterThan(0);
    expect(calls.hasNewerSession).toEqual([]);
  });
});

describe('the option', () => {
  it("is 'deliver' by default and refuses anything but 'deliver' or 'skip'", () => {
    expect(() =>
      createReceiver({
        secret: SECRET,
        client: false,
        supersededResults: 'drop' as unknown as 'skip',
      }),
    ).toThrow(ConfigurationError);
    expect(() =>
      createReceiver({
        secret: SECRET,
        client: false,
        supersededResults: 'drop' as unknown as 'skip',
      }),
    ).toThrow(/"supersededResults" must be 'deliver' or 'skip'/);
  });
});
