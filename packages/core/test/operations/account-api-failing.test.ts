import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, MemoryStore, type ReceiverAlert } from '../../src/index.js';
import { createTestClock } from '../../src/testing/index.js';
import { type Reply, type ScriptedServer, startScriptedServer } from '../client/scripted-server.js';
import { drive } from '../support-clock.js';

// One account's API failing (rate-limited, or hanging) on a Receiver of several: the other
// accounts carry on, and `api_failing` names the account whose calls fail, by its id.

const TOKEN_KEY = 'api-failing-token-key-0123456789abcdef';
const servers: ScriptedServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const pending: Reply = {
  status: 200,
  json: { token: 'tok', status: 'pending', external_user_id: 'u' },
};

async function twoAccounts(acmeReply: Reply) {
  const clock = createTestClock();
  const acme = await startScriptedServer(() => acmeReply, clock.now);
  const beta = await startScriptedServer(() => pending, clock.now);
  servers.push(acme, beta);
  const client = (url: string, key: string) => ({
    apiKey: key,
    baseUrl: url,
    timeoutMs: 2_000,
    maxRetries: 0,
  });
  const receiver = createReceiver({
    accounts: {
      acme: { secret: 'whsec_acme_0123456789abcdef', client: client(acme.url, 'fv_test_acme') },
      beta: { secret: 'whsec_beta_0123456789abcdef', client: client(beta.url, 'fv_test_beta') },
    },
    tokenKeys: [TOKEN_KEY],
    store: new MemoryStore(),
    clock,
    logger: false,
  });
  receiver.on('error', () => undefined);
  const alerts: ReceiverAlert[] = [];
  receiver.on('alert', (alert) => {
    alerts.push(alert);
  });
  for (const n of [1, 2, 3]) {
    await receiver.track(`tok_acme_${n}`, `user_${n}`, { account: 'acme' });
  }
  await receiver.track('tok_beta_1', 'user_1', { account: 'beta' });
  await clock.advance(60_000);
  await drive(clock, receiver.sweep());
  return { receiver, alerts, acme, beta };
}

describe("one account's API failing raises api_failing naming it, and the others carry on", () => {
  it.each([
    ['rate-limited', { status: 429, json: { message: 'slow down', retry_after_ms: 30_000 } }],
    ['hanging', { hang: 'before-headers' }],
  ] as [string, Reply][])('%s', async (_name, reply) => {
    const { receiver, alerts, acme, beta } = await twoAccounts(reply);
    expect(acme.requests.length).toBe(3);
    // Beta's session was asked about all the same.
    expect(beta.requests.length).toBe(1);
    const failing = alerts.filter((alert) => alert.code === 'api_failing');
    expect(failing.map((alert) => alert.account)).toContain('acme');
    expect(failing.some((alert) => alert.account === 'beta')).toBe(false);
    const ofAcme = failing.find((alert) => alert.account === 'acme')!;
    expect(ofAcme.message).toMatch(
      /^Account "acme": 3 calls to the service's API failed in the last 15 minutes \(the last: (rate limited \(429\)|no answer within 2000 ms)\)/,
    );
    expect((await receiver.health({ account: 'acme' })).reasons).toEqual(['api_failing']);
    expect((await receiver.health({ account: 'beta' })).reasons).toEqual([]);
  });
});
