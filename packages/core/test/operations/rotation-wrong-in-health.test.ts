import { afterEach, describe, expect, it } from 'vitest';
import {
  createReceiver,
  MemoryStore,
  type ReceiverAlert,
  type ReceiverOptions,
} from '../../src/index.js';
import {
  createTestClock,
  fixturePayload,
  signedDelivery,
  type TestClock,
} from '../../src/testing/index.js';
import { type ScriptedServer, startScriptedServer } from '../client/scripted-server.js';

// A token key removed too soon (here: an instance whose only key is not among those a
// session's token is sealed under) leaves sessions nobody polls. That reaches health() as a
// reason while sessions are left, and an alert; on a Receiver of several accounts, an alert of
// the account whose sessions they are, and that account's health.

const OLD_KEY = 'rotation-old-token-key-0123456789abcdef';
const NEW_KEY = 'rotation-new-token-key-0123456789abcdef';
const SECRET = 'whsec_rotation_wrong_0123456789';
let service: ScriptedServer | undefined;

afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function twoInstances(
  clock: TestClock,
  shape: (tokenKey: string) => Partial<ReceiverOptions>,
) {
  service = await startScriptedServer(
    () => ({ status: 200, json: { token: 'tok', status: 'pending', external_user_id: 'u' } }),
    clock.now,
  );
  const store = new MemoryStore();
  const make = (tokenKey: string) => {
    const receiver = createReceiver({
      store,
      clock,
      logger: false,
      tokenKeys: [tokenKey],
      ...shape(tokenKey),
    });
    receiver.on('error', () => undefined);
    const alerts: ReceiverAlert[] = [];
    receiver.on('alert', (alert) => {
      alerts.push(alert);
    });
    return { receiver, alerts };
  };
  return { before: make(OLD_KEY), after: make(NEW_KEY) };
}

describe('a rotation done wrong reaches health and alerts', () => {
  it('on a Receiver of one account', async () => {
    const clock = createTestClock();
    // Without dedicated keys of its own, a token is sealed under the signing secret too: each
    // instance's secret is of its own step here, so that neither opens with the other's.
    const { before, after } = await twoInstances(clock, (tokenKey) => ({
      secret: `${SECRET}_${tokenKey.slice(9, 12)}`,
      client: { apiKey: 'fv_test_rotation', baseUrl: service!.url },
    }));
    for (const n of [1, 2, 3]) await before.receiver.track(`tok_left_${n}`, `user_${n}`);
    await clock.advance(2 * 60_000);
    await after.receiver.sweep();
    const health = await after.receiver.health();
    expect(health.reasons).toEqual(['token_key_missing']);
    expect(health.status).toBe('degraded');
    expect(health.recent).toEqual(['token_key_missing']);
    // Raised once, by the store (naming the key ids), not again by the Receiver beside it.
    expect(after.alerts.map((alert) => alert.code)).toEqual(['token_key_missing']);
    // The instance that lists the key is fine.
    expect((await before.receiver.health()).reasons).toEqual([]);
  });

  // The old key removed while sessions it keyed were open, though their tokens are sealed
  // under the new key too (listed last when they started): they are polled as any, but each
  // one's user is indexed under the old key's hash, so a webhook naming that user finds no
  // session on an instance without the old key and is answered untracked.
  it('when the key its users are indexed under was removed too soon', async () => {
    const clock = createTestClock();
    const { before, after } = await twoInstances(clock, (tokenKey) => ({
      secret: SECRET,
      client: { apiKey: 'fv_test_rotation', baseUrl: service!.url },
      // The rotation's first step lists the new key last; the next removes the old one.
      tokenKeys: tokenKey === OLD_KEY ? [OLD_KEY, NEW_KEY] : [NEW_KEY],
    }));
    for (const n of [1, 2, 3]) await before.receiver.track(`tok_indexed_${n}`, `user_${n}`);
    const delivery = await signedDelivery(fixturePayload({ external_user_id: 'user_1' }), {
      secret: SECRET,
    });
    expect(JSON.parse((await after.receiver.receive(delivery)).body)).toMatchObject({
      untracked: true,
    });
    await clock.advance(2 * 60_000);
    const report = await after.receiver.sweep();
    // Polled, not left: this instance opens their tokens.
    expect(report.pending).toBe(3);
    expect(after.alerts.map((alert) => alert.code)).toEqual(['token_key_missing']);
    expect(after.alerts[0]!.message).toContain('webhooks naming their users find no session');
    expect(after.alerts[0]!.message).toContain('List it again on this instance, last in the list');
    const health = await after.receiver.health();
    expect(health.reasons).toEqual(['token_key_missing']);
    expect(health.status).toBe('degraded');
    // The instance that lists the old key finds them.
    await before.receiver.sweep();
    expect((await before.receiver.health()).reasons).toEqual([]);
    expect(before.alerts).toEqual([]);
  });

  it('on a Receiver of several accounts, naming the account', async () => {
    const clock = createTestClock();
    const { before, after } = await twoInstances(clock, () => ({
      accounts: {
        acme: { secret: SECRET, client: { apiKey: 'fv_test_acme', baseUrl: service!.url } },
        beta: { secret: `${SECRET}_b`, client: { apiKey: 'fv_test_beta', baseUrl: service!.url } },
      },
    }));
    for (const n of [1, 2]) {
      await before.receiver.track(`tok_acme_${n}`, `user_${n}`, { account: 'acme' });
    }
    await clock.advance(2 * 60_000);
    await after.receiver.sweep();
    const accountAlert = after.alerts.find((alert) => alert.account === 'acme');
    // Raised on the first session left.
    expect(accountAlert).toMatchObject({ code: 'token_key_missing', account: 'acme', count: 1 });
    expect(accountAlert!.message).toMatch(
      /^Account "acme": 1 session in the last 15 minutes was left to another instance/,
    );
    expect((await after.receiver.health({ account: 'acme' })).reasons).toEqual([
      'token_key_missing',
    ]);
    expect((await after.receiver.health({ account: 'beta' })).reasons).toEqual([]);
    expect((await after.receiver.health()).reasons).toEqual(['token_key_missing']);
  });
});
