import type { Emulator } from '@faceverify/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractWorker, startReceiverScenario } from './support-worker.js';
import type { D1Traffic } from './workerd/counting-database.js';

// docs/edge.md states these bounds: D1 statements (each statement of a batch counted) per step.
// The first step of a Receiver also reads D1's clock (leases follow it): one statement, again
// every 30 s.
const CLOCK_READING = 1;
// A start: its claim (one batch of 5) and its insert (one batch of 4, the start it ends included).
// A poll delivery looks its user up before the handlers (`event.superseded`): one statement.
const MAX_STATEMENTS = { start: 9 + CLOCK_READING, webhookDelivery: 6, pollDelivery: 9 };

let worker: ContractWorker;
let emulator: Emulator;
beforeAll(async () => {
  ({ worker, emulator } = await startReceiverScenario('d1-delivery-cost'));
});
afterAll(async () => {
  await worker?.close();
  await emulator?.close();
});

type Taken = { traffic: D1Traffic; delivered: string[] };

describe('D1 statements per delivery, with a real Receiver in workerd', () => {
  it('a webhook delivery', async () => {
    const started = await worker.call<{ token: string; traffic: D1Traffic }>(
      '/cost/start?user=wendy',
    );
    console.log(`start: ${JSON.stringify(started.traffic)}`);
    expect(started.traffic.statements).toBeLessThanOrEqual(MAX_STATEMENTS.start);
    await emulator.completeSession(started.token, 'verified');
    await emulator.webhooksSettled();
    expect(emulator.stats().webhooks.delivered).toBe(1);
    const taken = await worker.call<Taken>('/cost/taken');
    console.log(`webhook delivery: ${JSON.stringify(taken.traffic)}`);
    expect(taken.delivered).toEqual(['wendy:webhook']);
    expect(taken.traffic.statements).toBeGreaterThan(0);
    expect(taken.traffic.statements).toBeLessThanOrEqual(MAX_STATEMENTS.webhookDelivery);
  });

  it('a delivery by polling, after the webhook was lost', async () => {
    emulator.setFaults({ dropWebhooks: { next: 1 } });
    const started = await worker.call<{ token: string }>('/cost/start?user=paul');
    await emulator.completeSession(started.token, 'verified');
    await emulator.webhooksSettled();
    const swept = await worker.call<{ report: { delivered: number }; traffic: D1Traffic }>(
      '/cost/sweep',
    );
    console.log(`poll delivery: ${JSON.stringify(swept.traffic)}`);
    expect(swept.report.delivered).toBe(1);
    expect((await worker.call<Taken>('/cost/taken')).delivered).toEqual([
      'wendy:webhook',
      'paul:poll',
    ]);
    expect(swept.traffic.statements).toBeLessThanOrEqual(MAX_STATEMENTS.pollDelivery);
  });
});
