import { describe, expect, it } from 'vitest';
import { AccountDirectory } from '../../src/accounts/account-directory.js';
import type { AccountConfig } from '../../src/accounts/accounts-option.js';
import { createLog } from '../../src/base/logging/logger.js';
import {
  createClient,
  createReceiver,
  MemoryStore,
  type ReceiverAlert,
  type VerificationCompletedEvent,
} from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

// Anyone can post to /webhooks/verification/:account with an id of their choosing. Such ids
// spend a budget of resolver calls of their own: they never turn away a real account's webhook,
// never refresh for free, and never make the Receiver's own calls take an account for unknown.

const TOKEN_KEY = 'accounts-strangers-token-key-0123456789abcdef';
const MINUTE = 60_000;

const configOf = (id: string): AccountConfig => ({
  secret: `whsec_${id}_0123456789abcdef`,
  client: { apiKey: `fv_test_${id}`, baseUrl: 'http://127.0.0.1:9' },
});

/** A resolver that knows `real` ids (a set the test may add to), and counts its calls. */
function resolverOf(real: Set<string>) {
  const calls: { id: string; at: number }[] = [];
  let now = () => 0;
  return {
    calls,
    setClock: (clock: () => number) => {
      now = clock;
    },
    resolve: (id: string) => {
      calls.push({ id, at: now() });
      return real.has(id) ? configOf(id) : undefined;
    },
  };
}

function directory(
  real: Set<string>,
  limits: { cacheSize?: number; refreshAfterMs?: number; maxResolvesPerMinute?: number } = {},
) {
  const clock = createTestClock(Date.UTC(2030, 0, 1));
  const resolver = resolverOf(real);
  resolver.setClock(() => clock.now());
  const accounts = new AccountDirectory(
    { resolve: resolver.resolve, ...limits },
    (options) => createClient({ ...options, clock, logger: false }),
    clock,
    createLog(false),
  );
  return { accounts, clock, calls: resolver.calls };
}

const flood = async (accounts: AccountDirectory, count: number, prefix = 'made-up') => {
  for (let index = 0; index < count; index++) await accounts.find(`${prefix}-${index}`);
};

describe('made-up account ids spend a budget of their own', () => {
  it('an account the Receiver resolved is resolved again whatever strangers spent, though they pushed it out of the cache', async () => {
    const { accounts, calls } = directory(new Set(['acme']), {
      cacheSize: 10,
      maxResolvesPerMinute: 60,
    });
    expect((await accounts.get('acme'))?.id).toBe('acme');
    await flood(accounts, 60);
    expect(await accounts.find('made-up-60')).toBe('busy');
    const found = await accounts.find('acme');
    expect(found !== 'busy' && found?.id).toBe('acme');
    expect(calls.filter((call) => call.id === 'acme')).toHaveLength(2);
  });

  it('an account new to this instance is resolved past the budget when the store holds a session of it, and only then', async () => {
    const { accounts } = directory(new Set(['acme']), { maxResolvesPerMinute: 60 });
    await flood(accounts, 60);
    expect(await accounts.find('acme', () => false)).toBe('busy');
    const found = await accounts.find('acme', () => Promise.resolve(true));
    expect(found !== 'busy' && found?.id).toBe('acme');
  });

  it('evidence a store could not give leaves the request turned away, never failed', async () => {
    const { accounts } = directory(new Set(['acme']), { maxResolvesPerMinute: 1 });
    await flood(accounts, 1);
    expect(await accounts.find('acme', () => Promise.reject(new Error('store down')))).toBe('busy');
  });

  it('an id a stranger named before it was onboarded is resolved at once when the store shows a session of it', async () => {
    const real = new Set<string>();
    const { accounts } = directory(real);
    expect(await accounts.find('newco')).toBeUndefined();
    real.add('newco');
    expect(await accounts.find('newco', () => false)).toBeUndefined();
    const found = await accounts.find('newco', () => true);
    expect(found !== 'busy' && found?.id).toBe('newco');
  });
});

describe('cached unknown ids are asked about again only within the budget', () => {
  it('20 made-up ids cached unknown, named again once stale, cost at most maxResolvesPerMinute calls a minute', async () => {
    const { accounts, clock, calls } = directory(new Set(), {
      maxResolvesPerMinute: 5,
      refreshAfterMs: MINUTE,
    });
    for (let minute = 0; minute < 4; minute++) {
      for (let index = 0; index < 5; index++) await accounts.find(`made-up-${minute * 5 + index}`);
      await clock.advance(MINUTE);
    }
    expect(calls).toHaveLength(20);
    const from = clock.now();
    for (let round = 0; round < 10; round++) {
      for (let index = 0; index < 20; index++) await accounts.find(`made-up-${index}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(calls.filter((call) => call.at >= from)).toHaveLength(5);
  });
});

describe("the Receiver's own calls never take a stranger's unknown id for an answer", () => {
  it('an id a request named before it was onboarded is resolved again by get (startVerification, a stored record)', async () => {
    const real = new Set<string>();
    const { accounts, calls } = directory(real);
    expect(await accounts.find('newco')).toBeUndefined();
    real.add('newco');
    expect((await accounts.get('newco'))?.id).toBe('newco');
    expect(calls).toHaveLength(2);
  });

  it("an unknown id the Receiver's own call asked about is not asked again within refreshAfterMs", async () => {
    const { accounts, clock, calls } = directory(new Set(), { refreshAfterMs: 5 * MINUTE });
    expect(await accounts.get('gone')).toBeUndefined();
    expect(await accounts.get('gone')).toBeUndefined();
    expect(calls).toHaveLength(1);
    await clock.advance(5 * MINUTE);
    expect(await accounts.get('gone')).toBeUndefined();
    expect(calls).toHaveLength(2);
  });
});

describe('a Receiver flooded with made-up account ids', () => {
  it("serves a real account's webhook after 60 requests to made-up ids pushed it out of the cache, and tells the spent budget in health", async () => {
    const clock = createTestClock(Date.UTC(2030, 0, 1));
    const real = new Set(['acme']);
    const receiver = createReceiver({
      accounts: { resolve: (id) => (real.has(id) ? configOf(id) : undefined), cacheSize: 10 },
      tokenKeys: [TOKEN_KEY],
      store: new MemoryStore(),
      untrackedWebhooks: 'deliver',
      clock,
      logger: false,
    });
    const alerts: ReceiverAlert[] = [];
    receiver.on('alert', (alert) => alerts.push(alert));
    const delivered: VerificationCompletedEvent[] = [];
    receiver.on('verification.completed', (event) => {
      delivered.push(event);
    });
    const webhookOf = async (user: string) => ({
      ...(await signedDelivery(fixturePayload({ external_user_id: user }), {
        secret: configOf('acme').secret as string,
      })),
      account: 'acme',
    });
    expect((await receiver.receive(await webhookOf('gus'))).status).toBe(200);
    const unsigned = { method: 'POST', headers: {}, body: new TextEncoder().encode('{}') };
    const answers: number[] = [];
    for (let index = 0; index < 61; index++) {
      answers.push((await receiver.receive({ ...unsigned, account: `made-up-${index}` })).status);
    }
    expect(answers.at(-1)).toBe(503);
    expect((await receiver.receive(await webhookOf('hal'))).status).toBe(200);
    expect(delivered.map((event) => event.data.external_user_id)).toEqual(['gus', 'hal']);
    expect(alerts.map((alert) => alert.code)).toEqual(['account_budget_spent']);
    expect(await receiver.health()).toMatchObject({
      status: 'degraded',
      reasons: ['account_budget_spent'],
    });
  });
});
