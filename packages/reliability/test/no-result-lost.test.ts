import { createTestClock } from '@faceverify/core/testing';
import type { Outcome } from '@faceverify/emulator';
import { waitFor } from '@faceverify/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { everyRecordClosed } from './support/every-record-closed.js';
import { type HarnessOptions, startHarness } from './support/harness.js';

type Harness = Awaited<ReturnType<typeof startHarness>>;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function run(options: HarnessOptions, count: number, outcome: Outcome = 'verified') {
  harness = await startHarness(options);
  const { receiver, emulator } = harness;
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const { token } = await receiver.startVerification({ externalUserId: `user_${i}` });
    tokens.push(token);
  }
  receiver.start();
  await Promise.all(tokens.map((token) => emulator.completeSession(token, outcome)));
  return { ...harness, tokens };
}

async function settle(h: Harness & { tokens: string[] }) {
  await waitFor(
    () => h.ledger.missing(h.tokens).length === 0,
    `all ${h.tokens.length} sessions delivered`,
  );
  await h.emulator.webhooksSettled();
  await everyRecordClosed(h.store, h.receiver);
}

describe('no verification result is lost or handled twice', () => {
  it('every webhook dropped: every session is delivered once, by polling', async () => {
    const h = await run({ faults: { dropWebhooks: true } }, 25);
    await settle(h);
    expect(h.ledger.duplicates()).toEqual([]);
    expect(h.ledger.completed).toHaveLength(25);
    expect(h.ledger.completed.every((event) => event.source === 'poll')).toBe(true);
    expect(h.emulator.stats().webhooks.dropped).toBe(25);
  });

  it('webhooks on time: delivered once each, by webhook, matched to their session', async () => {
    // No poll falls due during the run, so every result must come by its webhook.
    const h = await run({ receiver: { pollScheduleMs: [10 * 60_000] } }, 20);
    await settle(h);
    expect(h.ledger.duplicates()).toEqual([]);
    expect(h.ledger.completed.map((event) => event.source)).toEqual(Array(20).fill('webhook'));
    expect(new Set(h.ledger.completed.map((event) => event.sessionToken))).toEqual(
      new Set(h.tokens),
    );
  });

  it('webhook and poll racing: polls due at once while webhooks are delayed', async () => {
    const h = await run(
      {
        faults: { delayWebhooks: { ms: 150, probability: 0.5 } },
        receiver: { pollScheduleMs: [0, 20] },
      },
      30,
    );
    await settle(h);
    expect(h.ledger.duplicates()).toEqual([]);
    expect(h.ledger.completed).toHaveLength(30);
    const sources = new Set(h.ledger.completed.map((event) => event.source));
    expect(sources.has('poll')).toBe(true);
  });

  it('duplicated webhooks are handled once', async () => {
    const h = await run({ faults: { duplicateWebhooks: true } }, 20);
    await settle(h);
    expect(h.emulator.stats().webhooks.duplicated).toBe(20);
    expect(h.ledger.duplicates()).toEqual([]);
    expect(h.ledger.completed).toHaveLength(20);
  });

  it('corrupt-signed webhooks are rejected, then the sessions are polled', async () => {
    const h = await run({ faults: { corruptWebhooks: true } }, 15);
    await settle(h);
    expect(h.emulator.stats().webhooks.corrupted).toBe(15);
    expect(h.ledger.duplicates()).toEqual([]);
    expect(h.ledger.completed.every((event) => event.source === 'poll')).toBe(true);
  });

  it('429 storms and 5xx on polling: retries honour retry_after_ms, nothing lost', async () => {
    const h = await run(
      {
        faults: {
          dropWebhooks: true,
          poll429: { probability: 0.5, retryAfterMs: 60 },
          poll5xx: { probability: 0.2 },
        },
      },
      20,
    );
    await settle(h);
    const stats = h.emulator.stats();
    expect(stats.pollFaults.rateLimited).toBeGreaterThan(0);
    expect(h.ledger.duplicates()).toEqual([]);
    expect(h.ledger.completed).toHaveLength(20);
  });

  it('a throwing handler is delivered again until it succeeds, then never again', async () => {
    const failedOnce = new Set<string>();
    harness = await startHarness({ faults: { dropWebhooks: { probability: 0.5 } } });
    const { receiver, emulator, ledger } = harness;
    const successes: string[] = [];
    // Registered before the ledger's handler would be: replace the order by a fresh receiver run.
    receiver.off('verification.completed', ledger.recordCompleted);
    receiver.on('verification.completed', (event) => {
      const token = event.sessionToken ?? event.id;
      if (!failedOnce.has(token)) {
        failedOnce.add(token);
        throw new Error('temporary failure');
      }
      successes.push(token);
    });
    const tokens: string[] = [];
    for (let i = 0; i < 12; i++) {
      tokens.push((await receiver.startVerification({ externalUserId: `retry_${i}` })).token);
    }
    receiver.start();
    await Promise.all(tokens.map((token) => emulator.completeSession(token, 'verified')));
    await waitFor(() => successes.length >= 12, 'every session handled successfully');
    await everyRecordClosed(harness.store, harness.receiver);
    expect(successes.sort()).toEqual([...tokens].sort());
  });

  it('a session never completed is given up once with verification.expired', async () => {
    harness = await startHarness({ receiver: { sessionLifetimeMs: 400, pollScheduleMs: [100] } });
    const { receiver, ledger } = harness;
    const { token } = await receiver.startVerification({ externalUserId: 'idle_user' });
    receiver.start();
    await waitFor(() => ledger.expired.length === 1, 'expired event');
    await everyRecordClosed(harness.store, harness.receiver);
    expect(ledger.expired).toHaveLength(1);
    expect(ledger.expired[0]!.sessionToken).toBe(token);
    expect(ledger.completed).toHaveLength(0);
  });

  it('two open sessions of one user: each result reaches its own session', async () => {
    harness = await startHarness({ receiver: { pollScheduleMs: [60_000] } });
    const { receiver, emulator, ledger } = harness;
    const first = await receiver.startVerification({ externalUserId: 'twice' });
    // A second session while the first is open, as an app asks for one explicitly.
    const second = await receiver.startVerification({ externalUserId: 'twice', fresh: true });
    await emulator.completeSession(first.token, 'liveness_failed');
    await emulator.completeSession(second.token, 'verified');
    await waitFor(() => ledger.completed.length >= 2, 'both delivered');
    await emulator.webhooksSettled();
    await everyRecordClosed(harness.store, harness.receiver);
    const byToken = new Map(ledger.completed.map((event) => [event.sessionToken, event]));
    expect(ledger.completed).toHaveLength(2);
    expect(byToken.get(first.token)?.data.livenessPassed).toBe(false);
    expect(byToken.get(second.token)?.data.status).toBe('verified');
  });

  it('confirm on redirect returns the service result and delivers it once', async () => {
    const clock = createTestClock(Date.now());
    harness = await startHarness({
      faults: { dropWebhooks: true },
      receiver: { pollScheduleMs: [60_000], clock },
    });
    const { receiver, emulator, ledger } = harness;
    const { token } = await receiver.startVerification({ externalUserId: 'redirected' });
    expect((await receiver.confirm(token)).status).toBe('pending');
    await emulator.completeSession(token, 'high_risk');
    // A page reloaded at once shares the answer just read: one request per token at a time.
    expect((await receiver.confirm(token)).status).toBe('pending');
    await clock.advance(2_000);
    const confirmed = await receiver.confirm(token);
    expect(confirmed.status).toBe('failed');
    expect(confirmed.result?.risk).toBe('high');
    expect(ledger.completed).toHaveLength(1);
    const again = await receiver.confirm(token);
    expect(again.status).toBe('failed');
    expect(ledger.completed).toHaveLength(1);
  });
});
