import { expect, it } from 'vitest';
import { createReceiver, MemoryStore, type ReceiverAlert } from '../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../src/testing/index.js';

const SECRET = 'whsec_backlog_alarm';

it('a sweep that leaves work due for over 5 minutes raises backlog_growing, once per window', async () => {
  const clock = createTestClock();
  const logged: string[] = [];
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    clock,
    sweepBatchSize: 1,
    retryScheduleMs: [10_000],
    logger: {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (message) => logged.push(message),
    },
  });
  let failing = true;
  receiver.on('verification.completed', () => {
    if (failing) throw new Error('the users table is locked');
  });
  receiver.on('error', () => undefined);
  const alerts: ReceiverAlert[] = [];
  receiver.on('alert', (alert) => {
    alerts.push(alert);
  });
  for (const user of ['u1', 'u2', 'u3']) {
    await receiver.receive(
      await signedDelivery(fixturePayload({ external_user_id: user }), {
        secret: SECRET,
      }),
    );
  }
  failing = false;
  // Due 10 s later, and nothing swept for 6 minutes; a sweep of one leaves two behind.
  await clock.advance(10_000 + 6 * 60_000);
  expect(await receiver.sweep()).toMatchObject({ leased: 1, delivered: 1 });
  const backlog = alerts.filter((alert) => alert.code === 'backlog_growing');
  expect(backlog).toHaveLength(1);
  expect(backlog[0]!.message).toContain('2 records are due, the oldest for 6 minutes');
  expect(backlog[0]!.message).toContain('Raise sweepBatchSize or sweepConcurrency');
  expect(logged.some((line) => line.includes('sweeps do not keep up'))).toBe(true);
  expect((await receiver.health()).reasons).toContain('backlog_growing');

  // The next sweeps catch up: nothing more is raised.
  await receiver.sweep();
  await receiver.sweep();
  expect((await receiver.health()).store.backlog).toEqual({ due: 0, oldestDueAgeMs: null });
  expect(alerts.filter((alert) => alert.code === 'backlog_growing')).toHaveLength(1);
});

it('a sweep that takes everything due raises nothing, however late it runs', async () => {
  const clock = createTestClock();
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    clock,
    retryScheduleMs: [10_000],
    logger: false,
  });
  let failing = true;
  receiver.on('verification.completed', () => {
    if (failing) throw new Error('down');
  });
  receiver.on('error', () => undefined);
  const alerts: ReceiverAlert[] = [];
  receiver.on('alert', (alert) => {
    alerts.push(alert);
  });
  await receiver.receive(await signedDelivery(fixturePayload(), { secret: SECRET }));
  failing = false;
  // A cron that sweeps every 10 minutes: the work waited, and the sweep takes all of it.
  await clock.advance(10 * 60_000);
  expect(await receiver.sweep()).toMatchObject({ delivered: 1 });
  expect(alerts.map((alert) => alert.code)).not.toContain('backlog_growing');
});
