import { describe, expect, it } from 'vitest';
import { AccountDirectory } from '../../src/accounts/account-directory.js';
import { createLog } from '../../src/base/logging/logger.js';
import { createClient, MemoryStore } from '../../src/index.js';
import { ActivityWindow } from '../../src/operations/activity-window.js';
import { accountContext } from '../../src/receiver/webhook/account-context.js';
import type { WebhookContext } from '../../src/receiver/webhook/webhook-context.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

// An instance just started (or behind a balancer) has resolved no account yet. While
// strangers spend the budget for ids not known to be accounts, the webhook of an account the
// store holds a session of, for the user the body names, is still served: the request
// itself is the evidence, at the cost of one store read.

const SECRET = 'whsec_acme_0123456789abcdef';

async function setUp() {
  const clock = createTestClock(Date.UTC(2030, 0, 1));
  const store = new MemoryStore();
  const now = clock.now();
  await store.insert({
    record: {
      key: 'hst_alice',
      token: 'hst_alice',
      externalUserId: 'alice',
      createdAt: now,
      expiresAt: now + 30 * 60_000,
      state: 'pending',
      dueAt: now + 60_000,
      attempts: 0,
    },
    now,
  });
  const accounts = new AccountDirectory(
    {
      resolve: (id) =>
        id === 'acme'
          ? { secret: SECRET, client: { apiKey: 'fv_test_acme', baseUrl: 'http://127.0.0.1:9' } }
          : undefined,
      maxResolvesPerMinute: 60,
    },
    (options) => createClient({ ...options, clock, logger: false }),
    clock,
    createLog(false),
  );
  const activity = new ActivityWindow(clock, 15 * 60_000);
  // The parts of a Receiver's context choosing an account reads: a real store and window.
  const context = {
    store,
    now: () => clock.now(),
    maxBodyBytes: 1024 * 1024,
    activity,
    handlers: { reportError: () => undefined },
  } as unknown as WebhookContext;
  const unsigned = { headers: {}, body: new TextEncoder().encode('{}') };
  for (let index = 0; index < 60; index++) {
    await accountContext(context, accounts, `made-up-${index}`, unsigned);
  }
  return { context, accounts, activity, store, clock };
}

const webhookOf = (user: string) =>
  signedDelivery(fixturePayload({ external_user_id: user }), { secret: SECRET });
const accountOf = (chosen: Awaited<ReturnType<typeof accountContext>>) =>
  'outcome' in chosen ? chosen.outcome : chosen.account;

describe("a real account's webhook on an instance new to it, while strangers spent the budget", () => {
  it('is served when the store holds an open session of the user its body names', async () => {
    const { context, accounts } = await setUp();
    expect(accountOf(await accountContext(context, accounts, 'made-up-60'))).toBe('busy');
    expect(
      accountOf(await accountContext(context, accounts, 'acme', await webhookOf('alice'))),
    ).toBe('acme');
  });

  it('is turned away, and told, when nothing shows the account is real', async () => {
    const { context, accounts, activity } = await setUp();
    const bob = await webhookOf('bob');
    const unsignedAlice = { ...(await webhookOf('alice')), headers: {} };
    expect(accountOf(await accountContext(context, accounts, 'acme', bob))).toBe('busy');
    expect(accountOf(await accountContext(context, accounts, 'acme', unsignedAlice))).toBe('busy');
    expect(activity.count('account_budget_spent')).toBe(2);
  });

  it('is served for a session closed and still kept: a late webhook of a result polling delivered', async () => {
    const { context, accounts, store, clock } = await setUp();
    const [session] = await store.findByUser({
      externalUserId: 'alice',
      now: clock.now(),
      limit: 1,
    });
    const owner = 'test';
    await store.lease({ key: session!.key, owner, now: clock.now(), leaseMs: 60_000 });
    await store.settle({
      key: session!.key,
      owner,
      now: clock.now(),
      update: { state: 'completed', retainMs: 60_000 },
    });
    expect(
      accountOf(await accountContext(context, accounts, 'acme', await webhookOf('alice'))),
    ).toBe('acme');
  });

  it('is answered store_unavailable when the store cannot be read for the evidence: the store failed it, not the budget', async () => {
    const { context, accounts, store, activity } = await setUp();
    const errors: string[] = [];
    Object.assign(context, {
      handlers: { reportError: (_: unknown, at: { stage: string }) => errors.push(at.stage) },
    });
    store.findByUser = () => Promise.reject(new Error('the store is down'));
    expect(
      accountOf(await accountContext(context, accounts, 'acme', await webhookOf('alice'))),
    ).toBe('store-failed');
    expect(errors).toEqual(['store']);
    expect(activity.count('account_budget_spent')).toBe(0);
  });
});
