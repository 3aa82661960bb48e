import { createReceiver } from '@faceverify/core';
import { createTestClock, fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { waitFor } from '@faceverify/test-support';
import { beforeAll, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';

const SECRET = 'whsec_postgres_slow_handler_2b7f';

let users: string;

beforeAll(async () => {
  users = `${uniquePrefix('slow')}users`;
  await connect().query(`CREATE TABLE ${users} (id text NOT NULL)`);
});

// Issue 18, item 4: the lease renewals of a transactional handler that hangs must not wait
// on its own transaction's row lock, each holding a pooled connection, until none is left.
it('one slow transactional handler does not stall other webhooks: with a pool of 2, other users are answered and delivered while it hangs for minutes', async () => {
  const pool = connect(undefined, { max: 2 });
  const store = new PostgresStore({ pool, prefix: uniquePrefix('slow_store') });
  await store.migrate();
  const clock = createTestClock();
  const receiver = createReceiver({ secret: SECRET, client: false, store, clock, leaseMs: 3_000 });
  let entered: () => void = () => undefined;
  const slowEntered = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  receiver.on(
    'verification.completed',
    async (event, { transaction }) => {
      await transaction.query(`INSERT INTO ${users} (id) VALUES ($1)`, [
        event.data.external_user_id,
      ]);
      if (event.data.external_user_id === 'slow_user') {
        entered();
        await released;
      }
    },
    { transactional: true },
  );
  const delivery = async (userId: string) =>
    signedDelivery(fixturePayload({ external_user_id: userId }), { secret: SECRET });
  const observer = connect();
  const written = async (userId: string) =>
    Number(
      (await observer.query(`SELECT count(*) AS n FROM ${users} WHERE id = $1`, [userId])).rows[0]
        .n,
    );

  const slow = receiver.receive(await delivery('slow_user'));
  await slowEntered;
  // Minutes pass with the handler's transaction open: 60 renewal periods and more.
  for (let step = 0; step < 60; step++) await clock.advance(5_000);
  const slowAnswer = await slow;
  expect(slowAnswer.status).toBe(202);

  for (const userId of ['other_1', 'other_2', 'other_3']) {
    const answer = await receiver.receive(await delivery(userId));
    expect(answer.status).toBe(200);
    expect(await written(userId)).toBe(1);
  }
  // Nobody took the hanging delivery over: once it ends, it commits, once.
  expect(await receiver.sweep()).toMatchObject({ leased: 0 });
  release();
  await waitFor(async () => (await written('slow_user')) === 1, 'the slow user written once');
  expect(await receiver.sweep()).toMatchObject({ leased: 0 });
  expect(await written('slow_user')).toBe(1);
});
