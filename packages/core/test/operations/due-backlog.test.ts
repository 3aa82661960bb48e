import { expect, it } from 'vitest';
import {
  createReceiver,
  type Logger,
  MemoryStore,
  type ReceiverAlert,
  type ReceiverOptions,
} from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

const SECRET = 'whsec_due_backlog';
const RETRY_MS = 10_000;

/**
 * A Receiver whose handler fails until `state.failing` is cleared: each webhook's result
 * waits for its retry, due `RETRY_MS` after it arrived.
 */
async function withFailedDeliveries(users: string[], options: Partial<ReceiverOptions> = {}) {
  const clock = createTestClock();
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    clock,
    retryScheduleMs: [RETRY_MS],
    logger: false,
    ...options,
  });
  const state = { failing: true };
  receiver.on('verification.completed', () => {
    if (state.failing) throw new Error('the users table is locked');
  });
  receiver.on('error', () => undefined);
  const alerts: ReceiverAlert[] = [];
  receiver.on('alert', (alert) => {
    alerts.push(alert);
  });
  for (const user of users) {
    const payload = fixturePayload({ external_user_id: user });
    await receiver.receive(await signedDelivery(payload, { secret: SECRET }));
    await clock.advance(1000);
  }
  const backlogAlerts = () => alerts.filter((alert) => alert.code === 'backlog_growing');
  return { clock, receiver, state, backlogAlerts };
}

it('health() counts what is due and how long the oldest has waited', async () => {
  const { receiver } = await withFailedDeliveries([]);
  expect((await receiver.health()).store.backlog).toEqual({ due: 0, oldestDueAgeMs: null });
  const busy = await withFailedDeliveries(['u1', 'u2']);
  // Both failed once and wait for their retry; neither is due yet.
  expect((await busy.receiver.health()).store.backlog).toEqual({ due: 0, oldestDueAgeMs: null });
  await busy.clock.advance(RETRY_MS + 5000);
  expect((await busy.receiver.health()).store.backlog).toEqual({ due: 2, oldestDueAgeMs: 7000 });
});

it('a sweep that leaves work due for over a minute raises backlog_growing, once per window', async () => {
  const logged: string[] = [];
  const logger: Logger = { error: (message) => logged.push(message) };
  const { clock, receiver, state, backlogAlerts } = await withFailedDeliveries(['u1', 'u2', 'u3'], {
    sweepBatchSize: 1,
    logger,
  });
  state.failing = false;
  // Due 10 s after each arrived, and nothing swept for 6 minutes: a sweep of one leaves two.
  await clock.advance(RETRY_MS + 6 * 60_000);
  expect(await receiver.sweep()).toMatchObject({ leased: 1, delivered: 1 });
  expect(backlogAlerts()).toHaveLength(1);
  expect(backlogAlerts()[0]!.message).toContain('2 records are due, the oldest for 6 minutes');
  expect(backlogAlerts()[0]!.message).toContain('Raise sweepBatchSize or sweepConcurrency');
  expect(logged.some((line) => line.includes('sweeps do not keep up'))).toBe(true);
  expect((await receiver.health()).reasons).toContain('backlog_growing');

  // The next sweeps catch up: nothing more is raised.
  await receiver.sweep();
  await receiver.sweep();
  expect((await receiver.health()).store.backlog).toEqual({ due: 0, oldestDueAgeMs: null });
  expect(backlogAlerts()).toHaveLength(1);
});

it('says "1 record is due" when one is left', async () => {
  const { clock, receiver, state, backlogAlerts } = await withFailedDeliveries(['u1', 'u2'], {
    sweepBatchSize: 1,
  });
  state.failing = false;
  await clock.advance(RETRY_MS + 6 * 60_000);
  expect(await receiver.sweep()).toMatchObject({ leased: 1, delivered: 1 });
  expect(backlogAlerts().map((alert) => alert.message)).toEqual([
    expect.stringContaining(
      ': 1 record is due, the oldest for 6 minutes, though sweeps ran to their end meanwhile',
    ),
  ]);
});

it('a sweep that takes everything due raises nothing, however late it runs', async () => {
  const { clock, receiver, state, backlogAlerts } = await withFailedDeliveries(['u1']);
  state.failing = false;
  // A cron that sweeps every 10 minutes: the work waited, and the sweep takes all of it.
  await clock.advance(10 * 60_000);
  expect(await receiver.sweep()).toMatchObject({ delivered: 1 });
  expect(backlogAlerts()).toEqual([]);
});

it('while start() sweeps, work due for over a minute raises backlog_growing within a minute', async () => {
  const users = Array.from({ length: 20 }, (_, index) => `u${index}`);
  const { clock, receiver, state, backlogAlerts } = await withFailedDeliveries(users, {
    sweepBatchSize: 1,
  });
  state.failing = false;
  // One arrived a second, each due 10 s later: the oldest has waited 10 s now, and one
  // record per 5 s sweep cannot keep up with one due a second.
  expect((await receiver.health()).store.backlog).toMatchObject({ oldestDueAgeMs: 10_000 });
  receiver.start();
  await clock.advance(45_000);
  expect(backlogAlerts()).toEqual([]);
  // The oldest passed a minute at 50 s: the alarm follows within a minute of that.
  await clock.advance(65_000);
  expect(backlogAlerts()).toHaveLength(1);
  expect(backlogAlerts()[0]!.message).toMatch(/records are due, the oldest for \d+ s/);
  expect(await receiver.health()).toMatchObject({ ready: true, status: 'degraded' });
  await receiver.stop();
});
