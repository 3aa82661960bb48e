import { type D1Database, D1Store } from '../../src/index.js';
import { countingDatabase } from './counting-database.js';
import { seedRecords } from './seed-records.js';

const NOW = Date.UTC(2030, 0, 1);

/**
 * What a sweep of `count` due records costs in the store: one leaseDue for all of them, then
 * one settle each (completed), `concurrency` at a time (the Receiver's `sweepConcurrency`,
 * default 4). A figure for docs/edge.md and the tracker benchmark.
 */
export async function measureSweep(
  db: D1Database,
  reset: () => Promise<unknown>,
  count: number,
  concurrency = 4,
) {
  await reset();
  await seedRecords(db, { prefix: 'due_', count, dueAt: NOW - 1, now: NOW });
  const counter = countingDatabase(db);
  const store = new D1Store({ db: counter.db });
  const started = Date.now();
  const leased = await store.leaseDue({ owner: 'sweep', now: NOW, leaseMs: 60_000, limit: count });
  const leasedAt = Date.now();
  let next = 0;
  let settled = 0;
  const worker = async () => {
    while (next < leased.length) {
      const record = leased[next++]!;
      const update = { state: 'completed' as const, retainMs: 3_600_000 };
      if (await store.settle({ key: record.key, owner: 'sweep', update, now: NOW })) settled += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const finished = Date.now();
  return {
    count,
    concurrency,
    leased: leased.length,
    settled,
    leaseDueMs: leasedAt - started,
    settleMs: finished - leasedAt,
    totalMs: finished - started,
    ...counter.traffic,
  };
}
