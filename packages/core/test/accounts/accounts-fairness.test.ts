import { afterEach, expect, it } from 'vitest';
import type { AccountConfig } from '../../src/accounts/accounts-option.js';
import { createReceiver, MemoryStore, type VerificationCompletedEvent } from '../../src/index.js';
import { createTestClock, fixturePayload } from '../../src/testing/index.js';
import { type ScriptedServer, startScriptedServer } from '../client/scripted-server.js';

// Fair under load: the service's limits are per key, so one account rate-limited hard must not
// delay the others. Nine healthy accounts and one whose every poll is answered 429 share one
// Receiver; every webhook is lost, so each result is recovered by polling. The time the healthy
// accounts' results take to arrive, counted on the test clock, is the same with the noisy
// account's backlog as without it.

const TOKEN_KEY = 'fairness-test-token-key-0123456789abcdef';
const HEALTHY = Array.from({ length: 9 }, (_, index) => `healthy-${index}`);
const PER_HEALTHY_ACCOUNT = 5;
const NOISY_SESSIONS = 400;
const FIRST_POLL_MS = 60_000;
const SWEEP_MS = 5_000;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * Test-clock milliseconds from the first poll's due time until every healthy account's result
 * was delivered, and how many GETs the noisy account's key sent meanwhile.
 */
async function healthyRecovery(noisySessions: number) {
  const clock = createTestClock(Date.UTC(2030, 0, 1));
  let next = 0;
  server = await startScriptedServer((request) => {
    const key = String(request.headers.authorization).replace('Bearer ', '');
    if (request.method === 'POST') {
      // The account's name, never its key: the client scrubs its key from every answer.
      const token = `${key.replace('fv_test_', '')}.${++next}`;
      return { status: 200, json: { token, verify_url: `https://verify.example/v/${token}` } };
    }
    if (key === 'fv_test_noisy') {
      return {
        status: 429,
        json: { success: false, message: 'Rate limit exceeded', retry_after_ms: 60_000 },
      };
    }
    const token = request.url.split('/').at(-1)!;
    const { event: _event, extra: _extra, ...result } = fixturePayload({ external_user_id: 'u' });
    return {
      status: 200,
      json: { token, status: 'verified', external_user_id: 'u', result },
    };
  }, clock.now);
  const account = (id: string): AccountConfig => ({
    secret: `whsec_${id}_0123456789abcdef`,
    client: { apiKey: `fv_test_${id}`, baseUrl: server!.url, createSessionsPerMinute: 100_000 },
  });
  const receiver = createReceiver({
    accounts: Object.fromEntries(['noisy', ...HEALTHY].map((id) => [id, account(id)])),
    tokenKeys: [TOKEN_KEY],
    store: new MemoryStore(),
    clock,
    logger: false,
    pollScheduleMs: [FIRST_POLL_MS],
    sweepIntervalMs: SWEEP_MS,
    sweepBatchSize: 50,
    sweepConcurrency: 4,
  });
  receiver.on('error', () => undefined);
  const healthyDelivered: VerificationCompletedEvent[] = [];
  receiver.on('verification.completed', (event) => {
    if (event.account !== 'noisy') healthyDelivered.push(event);
  });
  // The noisy account's sessions started first: they are the oldest due, ahead of every other.
  for (let index = 0; index < noisySessions; index++) {
    await receiver.startVerification({ externalUserId: `user-${index}`, account: 'noisy' });
  }
  for (const id of HEALTHY) {
    for (let index = 0; index < PER_HEALTHY_ACCOUNT; index++) {
      await receiver.startVerification({ externalUserId: `user-${index}`, account: id });
    }
  }
  const noisyGets = () =>
    server!.requests.filter(
      (request) =>
        request.method === 'GET' && request.headers.authorization === 'Bearer fv_test_noisy',
    ).length;
  await clock.advance(FIRST_POLL_MS);
  const dueAt = clock.now();
  // Swept every interval, as start() does, until every healthy result is in.
  while (healthyDelivered.length < HEALTHY.length * PER_HEALTHY_ACCOUNT) {
    await receiver.sweep();
    if (healthyDelivered.length < HEALTHY.length * PER_HEALTHY_ACCOUNT)
      await clock.advance(SWEEP_MS);
  }
  return { afterDueMs: clock.now() - dueAt, noisyGets: noisyGets(), healthyDelivered };
}

it("one account rate-limited hard delays no other account's results recovered by polling", async () => {
  const alone = await healthyRecovery(0);
  await server?.close();
  const beside = await healthyRecovery(NOISY_SESSIONS);

  // Recovered by the first sweep after they fell due, with or without the noisy backlog.
  expect(alone.afterDueMs).toBe(0);
  expect(beside.afterDueMs).toBe(alone.afterDueMs);
  expect(new Set(beside.healthyDelivered.map((event) => event.account))).toEqual(new Set(HEALTHY));
  // The noisy key was not hammered: once answered 429, its other polls waited for the limit
  // without a request.
  expect(beside.noisyGets).toBeLessThanOrEqual(4);
});
