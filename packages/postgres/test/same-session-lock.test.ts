import { createReceiver } from '@faceverify/core';
import { createTestClock, fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';

const SECRET = 'whsec_postgres_same_session_lock_3f9e';
// track() needs a client; nothing here asks the service (webhooks are not confirmed).
const CLIENT = { apiKey: 'fv_test_pg_lock', baseUrl: 'http://127.0.0.1:9' };

// Issue 18, item 4: bounded lock waits. While a transactional handler holds its session's row
// (the delivery's transaction), another webhook of the same session must be answered, not
// wait for the handler on a pooled connection.
it('a second webhook of a session whose transactional handler hangs is answered without waiting for it, on a pool of 2', async () => {
  const pool = connect(undefined, { max: 2 });
  const store = new PostgresStore({ pool, prefix: uniquePrefix('lock_store') });
  await store.migrate();
  const clock = createTestClock();
  const receiver = createReceiver({
    secret: SECRET,
    client: CLIENT,
    confirmWebhooks: false,
    store,
    clock,
    logger: false,
  });
  let entered: () => void = () => undefined;
  const handlerEntered = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let runs = 0;
  receiver.on(
    'verification.completed',
    async () => {
      runs += 1;
      entered();
      await released;
    },
    { transactional: true },
  );
  await receiver.track('tok_pg_lock_1', 'lockie');
  const first = receiver.receive(
    await signedDelivery(fixturePayload({ external_user_id: 'lockie', confidence: 0.91 }), {
      secret: SECRET,
    }),
  );
  await handlerEntered;
  // The same session's result again, in other bytes (the service's webhook after a poll).
  const second = await receiver.receive(
    await signedDelivery(fixturePayload({ external_user_id: 'lockie', confidence: 0.92 }), {
      secret: SECRET,
    }),
  );
  expect([200, 202]).toContain(second.status);
  await clock.advance(5_000);
  release();
  expect((await first).status).toBeLessThan(300);
  expect(runs).toBe(1);
});
