import { expect, it } from 'vitest';
import {
  createReceiver,
  MemoryStore,
  type VerificationUndeliverableEvent,
} from '../../src/index.js';
import type { SettleOptions } from '../../src/store/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

const SECRET = 'whsec_unrecorded_attempts';

/** A store that can never record a completion, as PostgreSQL refusing a value would. */
class StoreThatCannotRecordCompletion extends MemoryStore {
  override async settle(options: SettleOptions): Promise<boolean> {
    if (options.update.state === 'completed') throw new Error('value out of range for the store');
    return super.settle(options);
  }
}

// Issue 18, item 3: every attempt counts, including one whose success cannot be recorded.
it('every attempt counts, including one whose success cannot be recorded: failed and undeliverable at maxDeliveryAttempts', async () => {
  const clock = createTestClock();
  const store = new StoreThatCannotRecordCompletion();
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store,
    clock,
    leaseMs: 3_000,
    maxDeliveryAttempts: 3,
    retryScheduleMs: [10_000],
  });
  let runs = 0;
  receiver.on('verification.completed', () => {
    runs += 1;
  });
  const undeliverable: VerificationUndeliverableEvent[] = [];
  receiver.on('verification.undeliverable', (event) => {
    undeliverable.push(event);
  });
  /** Runs `work` while moving the clock: the store's failures are retried on it. */
  const withClock = async <T>(work: Promise<T>): Promise<T> => {
    let done = false;
    const finished = work.finally(() => {
      done = true;
    });
    while (!done) await clock.advance(250);
    return finished;
  };

  await withClock(
    receiver.receive(
      await signedDelivery(fixturePayload({ external_user_id: 'u_unrecorded' }), {
        secret: SECRET,
      }),
    ),
  );
  expect(runs).toBe(1);
  expect((await store.counts({ now: clock.now() })).delivering).toBe(1);
  for (let attempt = 2; attempt <= 3; attempt++) {
    await clock.advance(10_000);
    await withClock(receiver.sweep());
    expect(runs).toBe(attempt);
  }
  expect(await store.counts({ now: clock.now() })).toMatchObject({
    failed: 1,
    delivering: 0,
    pending: 0,
  });
  expect(undeliverable).toHaveLength(1);
  expect(undeliverable[0]?.reason).toBe('attempts_exhausted');
  expect(undeliverable[0]?.event.attempt).toBe(3);
  expect(undeliverable[0]?.error).toBeInstanceOf(Error);
  expect((undeliverable[0]?.error as Error | undefined)?.message).toBe(
    'value out of range for the store',
  );
  // The loop has ended: nothing is delivered again however long the receiver runs.
  await clock.advance(3_600_000);
  await withClock(receiver.sweep());
  expect(runs).toBe(3);
});

/** A store whose first completion throws where it stands, instead of rejecting. */
class StoreThatThrowsOnce extends MemoryStore {
  thrown = 0;
  override settle(options: SettleOptions): Promise<boolean> {
    if (options.update.state === 'completed' && this.thrown === 0) {
      this.thrown += 1;
      throw new Error('connection reset');
    }
    return super.settle(options);
  }
}

it('a success the store failed to record by throwing, not rejecting, is recorded on the next try', async () => {
  const clock = createTestClock();
  const store = new StoreThatThrowsOnce();
  const receiver = createReceiver({ secret: SECRET, client: false, store, clock });
  let runs = 0;
  receiver.on('verification.completed', () => {
    runs += 1;
  });
  const answering = receiver.receive(
    await signedDelivery(fixturePayload({ external_user_id: 'u_thrown' }), { secret: SECRET }),
  );
  let answered = false;
  void answering.finally(() => {
    answered = true;
  });
  while (!answered) await clock.advance(25);
  const answer = await answering;
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.body)).toEqual({ received: true });
  expect(store.thrown).toBe(1);
  expect(runs).toBe(1);
  expect(await store.counts({ now: clock.now() })).toMatchObject({ delivering: 0, pending: 0 });
});
