import { describe, expect, it } from 'vitest';
import {
  createReceiver,
  MemoryStore,
  type VerificationCompletedEvent,
  type VerificationUndeliverableEvent,
} from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

const SECRET = 'whsec_dead_letters';
const RETRY_MS = 10_000;

/**
 * Two Receivers sharing one store, as two instances of an application would, whose handler
 * fails until `fixed` is set: a webhook's result is given up after two attempts.
 */
async function withDeadLetter() {
  const clock = createTestClock();
  const store = new MemoryStore();
  const options = {
    secret: SECRET,
    client: false as const,
    store,
    clock,
    maxDeliveryAttempts: 2,
    retryScheduleMs: [RETRY_MS],
  };
  const receivers = [createReceiver(options), createReceiver(options)];
  const delivered: VerificationCompletedEvent[] = [];
  const undeliverable: VerificationUndeliverableEvent[] = [];
  const state = { fixed: false };
  for (const receiver of receivers) {
    receiver.on('verification.completed', (event) => {
      if (!state.fixed) throw new Error('the users table is locked');
      delivered.push(event);
    });
    receiver.on('verification.undeliverable', (event) => {
      undeliverable.push(event);
    });
  }
  const [a, b] = receivers as [(typeof receivers)[0], (typeof receivers)[0]];
  const payload = fixturePayload({ external_user_id: 'u_dead_letter' });
  // The first attempt fails inside the webhook's request; the result is kept for a retry.
  await a.receive(await signedDelivery(payload, { secret: SECRET }));
  await clock.advance(RETRY_MS);
  expect(await a.sweep()).toMatchObject({ leased: 1, failed: 1 });
  expect(undeliverable).toHaveLength(1);
  return { clock, store, a, b, delivered, state };
}

describe('dead letters through the Receiver', () => {
  it('a result that exhausted its attempts is listed with its result, oldest first', async () => {
    const { a } = await withDeadLetter();
    const { deadLetters, cursor } = await a.deadLetters.list();
    expect(cursor).toBeUndefined();
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({
      externalUserId: 'u_dead_letter',
      attempts: 2,
      source: 'webhook',
      data: { status: 'verified', external_user_id: 'u_dead_letter' },
    });
    // The store's key, never a session token: dead letters hold none.
    expect(deadLetters[0]!.key).toMatch(/^webhook:|^t1:/);
  });

  it('concurrent redeliveries from two instances reopen it once, and it is delivered once', async () => {
    const { a, b, delivered, state } = await withDeadLetter();
    const [letter] = (await a.deadLetters.list()).deadLetters;
    state.fixed = true;
    const reopened = await Promise.all([
      a.deadLetters.redeliver(letter!.key),
      b.deadLetters.redeliver(letter!.key),
      a.deadLetters.redeliver(letter!.key),
    ]);
    expect(reopened.filter(Boolean)).toHaveLength(1);
    expect((await a.deadLetters.list()).deadLetters).toHaveLength(0);
    const health = await a.health();
    expect(health.store.backlog).toEqual({ due: 1, oldestDueAgeMs: 0 });
    // Both instances sweep at once: the lease gives the result to one of them.
    const reports = await Promise.all([a.sweep(), b.sweep()]);
    expect(reports.reduce((sum, report) => sum + report.delivered, 0)).toBe(1);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ attempt: 1, data: { status: 'verified' } });
    expect(await a.deadLetters.redeliver(letter!.key)).toBe(false);
    expect(await a.sweep()).toMatchObject({ leased: 0 });
    expect(delivered).toHaveLength(1);
  });

  it('a redelivered result whose handler still fails becomes a dead letter again', async () => {
    const { a, clock, store } = await withDeadLetter();
    const [letter] = (await a.deadLetters.list()).deadLetters;
    expect(await a.deadLetters.redeliver(letter!.key)).toBe(true);
    expect(await a.sweep()).toMatchObject({ leased: 1, failed: 1 });
    await clock.advance(RETRY_MS);
    expect(await a.sweep()).toMatchObject({ leased: 1, failed: 1 });
    expect((await store.counts({ now: clock.now() })).failed).toBe(1);
    expect((await a.deadLetters.list()).deadLetters).toHaveLength(1);
  });

  it('a discarded result is neither listed nor delivered', async () => {
    const { a, b, clock, delivered, state } = await withDeadLetter();
    const [letter] = (await a.deadLetters.list()).deadLetters;
    state.fixed = true;
    const outcomes = await Promise.all([
      a.deadLetters.discard(letter!.key),
      b.deadLetters.redeliver(letter!.key),
    ]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    if (outcomes[0]) {
      expect((await a.deadLetters.list()).deadLetters).toHaveLength(0);
      await clock.advance(3_600_000);
      await a.sweep();
      expect(delivered).toHaveLength(0);
    } else {
      // The redelivery won the race: the discard found no dead letter.
      await a.sweep();
      expect(delivered).toHaveLength(1);
    }
    expect(await a.deadLetters.discard(letter!.key)).toBe(false);
  });

  it('list pages with a cursor and refuses a limit out of range', async () => {
    const { a } = await withDeadLetter();
    await expect(a.deadLetters.list({ limit: 0 })).rejects.toThrow(/from 1 to 1000/);
    await expect(a.deadLetters.list({ cursor: 'nonsense' })).rejects.toThrow(
      /not a dead-letter cursor/,
    );
  });
});
