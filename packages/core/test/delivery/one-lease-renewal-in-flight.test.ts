import { expect, it } from 'vitest';
import { createReceiver, MemoryStore } from '../../src/index.js';
import type { LeaseOptions, TrackedSession } from '../../src/store/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

/** A store whose renewals of an already held lease never answer, as a lock wait would. */
class StoreWithStuckRenewals extends MemoryStore {
  renewals = 0;
  override async lease(options: LeaseOptions): Promise<TrackedSession | undefined> {
    const current = await this.get({ key: options.key, now: options.now });
    if (current?.lease?.owner !== options.owner) return super.lease(options);
    this.renewals += 1;
    return new Promise(() => undefined);
  }
}

// Issue 18, item 4: renewals do not pile up behind a store that does not answer.
it('keeps at most one lease renewal in flight per lease while a handler runs for minutes', async () => {
  const clock = createTestClock();
  const store = new StoreWithStuckRenewals();
  const receiver = createReceiver({
    secret: 'whsec_one_renewal',
    client: false,
    store,
    clock,
    leaseMs: 3_000,
  });
  let entered: () => void = () => undefined;
  const handlerEntered = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let release: () => void = () => undefined;
  receiver.on('verification.completed', async () => {
    entered();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
  });
  const answer = receiver.receive(
    await signedDelivery(fixturePayload({ external_user_id: 'u_one_renewal' }), {
      secret: 'whsec_one_renewal',
    }),
  );
  await handlerEntered;
  const before = store.renewals;
  // 120 renewal periods (leaseMs / 3) pass while the handler runs.
  for (let step = 0; step < 120; step++) await clock.advance(1_000);
  expect(store.renewals - before).toBe(1);
  expect((await answer).status).toBe(202);
  release();
});
