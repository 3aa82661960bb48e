import { expect, it } from 'vitest';
import { createReceiver, MemoryStore, type ReceiverAlert } from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

// backlog_growing names the fix of what held the work: "raise sweepBatchSize" only when sweeps
// ran to their end and left it (due-backlog.test.ts), never when one sweep was held by a
// handler that runs for minutes while other work fell due.

const SECRET = 'whsec_backlog_cause';

it('a sweep held by a handler that hangs names the handler, not sweepBatchSize', async () => {
  const clock = createTestClock();
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    clock,
    retryScheduleMs: [10_000],
    logger: false,
  });
  const failOnce = new Set(['hangs', 'later']);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  receiver.on('verification.completed', async ({ data }) => {
    if (failOnce.delete(data.external_user_id)) throw new Error('the users table is locked');
    if (data.external_user_id === 'hangs') await gate;
  });
  receiver.on('error', () => undefined);
  const alerts: ReceiverAlert[] = [];
  receiver.on('alert', (alert) => {
    alerts.push(alert);
  });
  const webhook = async (user: string) =>
    receiver.receive(
      await signedDelivery(fixturePayload({ external_user_id: user }), { secret: SECRET }),
    );
  expect((await webhook('hangs')).status).toBe(500);
  receiver.start();
  // The retry of `hangs` is swept after 10 s, and its handler hangs, holding that sweep.
  await clock.advance(16_000);
  expect((await webhook('later')).status).toBe(500);
  for (let step = 0; step < 12; step++) await clock.advance(10_000);
  const backlog = alerts.filter((alert) => alert.code === 'backlog_growing');
  expect(backlog).toHaveLength(1);
  expect(backlog[0]!.message).toMatch(
    /^Results and polls waited too long for a sweep 1 time in the last 15 minutes: 1 record is due, the oldest for \d+ s, while one sweep has run for \d+ (s|minutes): verification\.completed handlers run inside it/,
  );
  expect(backlog[0]!.message).toContain('Find the handler that runs long');
  expect(backlog[0]!.message).not.toContain('sweepBatchSize');
  release();
  await receiver.stop();
});
