import type { ReceiverPaths } from '@faceverify/test-support/round-trips';
import { ONE_ROUND_TRIP_PER_START_CALL } from '@faceverify/test-support/start-round-trips';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ContractWorker, startContractWorker } from './support-worker.js';

// The D1 calls each path of a Receiver waits for, one after another, counted on the binding
// inside workerd (exact, never timed): BENCHMARKS.md, "Store round trips per webhook", tables
// these counts beside Redis' and PostgreSQL's. A call is one statement, or one batch (one
// transaction). A webhook remembers its digest while it looks its user up (under the keyed
// hash of the id: two calls, one round trip), attaches its result
// and leases the session in one batch, and records the delivery. A sweep prunes, reads and
// leases what is due in one batch, settles its sessions (those settled side by side go in one
// batch: nothing more per session), and reads the backlog. The first step reads D1's clock.
const D1 = {
  firstStep: '2/2',
  track: '1/1',
  webhookTracked_plain: '3/4',
  webhookTrackedElsewhere: '3/4',
  duplicate: '1/2',
  rejection: '0/0',
  webhookConfirmed: '3/4',
  pollDelivery: '4/4',
  sweep1: '3/3',
  perDueSession: '+0',
};

let worker: ContractWorker;
beforeAll(async () => {
  worker = await startContractWorker();
});
afterAll(async () => {
  await worker?.close();
});

it('store round trips of a Receiver on D1, counted on the binding in workerd', async () => {
  const { tally, paths } = await worker.call<{
    tally: Record<string, string>;
    paths: ReceiverPaths;
  }>('/round-trips');
  console.log(paths);
  expect(tally).toEqual(D1);
});

// A start's calls (Store contract rule 13), on any isolate: each one call, a claim one batch
// that reads the claim, the record and the counts and then writes, the insert that ends it a
// batch of the insert and the start's row.
it('store round trips of the starts on D1: one call each', async () => {
  const { tally } = await worker.call<{ tally: Record<string, string> }>('/start-round-trips');
  expect(tally).toEqual(ONE_ROUND_TRIP_PER_START_CALL);
});
