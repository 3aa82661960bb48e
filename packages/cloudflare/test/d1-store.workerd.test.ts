import { storeContractCases } from '@faceverify/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractWorker, startContractWorker } from './support-worker.js';

// The cases run inside workerd, against D1 in Miniflare; only their names are read here, so
// that each one is a test of its own on the host and a failing one fails the run.
const names = storeContractCases(() => {
  throw new Error('the cases run in workerd, not here');
}).map((check) => check.name);

let worker: ContractWorker;
beforeAll(async () => {
  worker = await startContractWorker();
});
afterAll(async () => {
  await worker?.close();
});

describe('D1Store keeps the Store contract in workerd with a real D1', () => {
  it('has cases to run', () => {
    expect(names.length).toBeGreaterThan(10);
  });
  for (const name of names) {
    it(`${name} [D1Store in workerd]`, async () => {
      const outcome = await worker.call<{ ok: boolean; error?: string }>(
        `/cases?name=${encodeURIComponent(name)}`,
      );
      expect(outcome.error).toBeUndefined();
      expect(outcome.ok).toBe(true);
    });
  }
});

describe('D1Store against the reference MemoryStore, in workerd', () => {
  it('answers every random sequence of operations the same way', async () => {
    const outcome = await worker.call<{ ok: boolean; error?: string }>('/model?runs=20');
    expect(outcome.error).toBeUndefined();
    expect(outcome.ok).toBe(true);
  }, 120_000);
});

describe('D1Store in workerd', () => {
  it('applies its migrations once and records them as wrangler does', async () => {
    const report = await worker.call<{ second: string[]; recorded: { name: string }[] }>(
      '/migrations',
    );
    expect(report.second).toEqual([]);
    expect(report.recorded).toEqual([
      { name: '0001_faceverify_store.sql' },
      { name: '0002_faceverify_dead_letters.sql' },
      { name: '0003_faceverify_starts.sql' },
    ]);
  });

  it('leaseDue reads the due records through the partial index, not every record', async () => {
    const report = await worker.call<{
      tracked: number;
      due: number;
      leased: number;
      rowsRead: number;
      statements: number;
      roundTrips: number;
      plan: string[];
      dueSummary: { due: number; rowsRead: number; plan: string[] };
    }>('/scaling');
    expect(report.leased).toBe(report.due);
    // dueSummary, read first, counts the same 5 through the same index.
    expect(report.dueSummary.due).toBe(report.due);
    expect(report.dueSummary.plan.join('\n')).toMatch(/USING INDEX faceverify_records_due/);
    expect(report.dueSummary.rowsRead).toBeLessThanOrEqual(10 * report.due);
    expect(report.plan.join('\n')).toMatch(/USING INDEX faceverify_records_due/);
    // Six statements in one round trip (four on records and digests, two deleting starts and
    // counts past their time); the rows read follow the 5 due records, where a scan would
    // read all 5005.
    expect(report.roundTrips).toBe(1);
    expect(report.statements).toBe(6);
    expect(report.rowsRead).toBeGreaterThan(0);
    expect(report.rowsRead).toBeLessThanOrEqual(10 * report.due);
  });

  it("groups a sweep's concurrent settles into batches, each with its own outcome", async () => {
    const report = await worker.call<{
      count: number;
      leased: number;
      settled: number;
      statements: number;
      roundTrips: number;
      settleMs: number;
    }>('/measure-sweep?n=200&concurrency=8');
    console.log(`sweep of 200 due, 8 at once: ${JSON.stringify(report)}`);
    expect(report.leased).toBe(200);
    expect(report.settled).toBe(200);
    // 6 statements for leaseDue and one per settle, but settles that arrive while another is
    // in flight share a round trip: one at a time would be 1 + 200.
    expect(report.statements).toBe(6 + 200);
    expect(report.roundTrips).toBeLessThanOrEqual(1 + Math.ceil(200 / 3));
  });

  it("a Receiver's sweep shares D1 round trips between its concurrent settles, at the default concurrency", async () => {
    await worker.call('/tracker/setup?tracked=400&due=200&concurrency=4');
    const sweep = await worker.call<{ selected: number; handled: number; roundTrips: number }>(
      '/tracker/phase?name=sweep&concurrency=4',
    );
    console.log(`Receiver sweep of 200 due, 4 at once: ${JSON.stringify(sweep)}`);
    expect(sweep.selected).toBe(200);
    expect(sweep.handled).toBe(200);
    // One round trip to lease, a lookup of each delivery's user (`event.superseded`: reads are
    // not grouped, so a webhook's never waits), then settles: one per delivery when each went
    // alone (1 + 200 + 200).
    expect(sweep.roundTrips).toBeLessThanOrEqual(1 + 200 + 200 / 2 + 1);
  });

  it('deletes what passed its time in bounded batches, and hides it at once', async () => {
    type Rows = { records: number; digests: number; starts: number; counts: number };
    const report = await worker.call<{
      before: Rows;
      visibleJustBefore: boolean;
      visibleAt: boolean;
      rememberedAgainAt: boolean;
      rowsWhileUnswept: Rows;
      afterSweeps: Rows[];
      abandonedKeptUntil: boolean;
    }>('/retention');
    expect(report.before).toEqual({ records: 26, digests: 25, starts: 12, counts: 12 });
    expect(report.visibleJustBefore).toBe(true);
    expect(report.visibleAt).toBe(false);
    expect(report.rememberedAgainAt).toBe(true);
    expect(report.rowsWhileUnswept).toEqual({ records: 26, digests: 25, starts: 12, counts: 12 });
    // 10 of each per leaseDue; d0 was remembered again, so 24 digests were expired.
    expect(report.afterSweeps).toEqual([
      { records: 16, digests: 15, starts: 2, counts: 2 },
      { records: 6, digests: 5, starts: 0, counts: 0 },
      { records: 1, digests: 1, starts: 0, counts: 0 },
      { records: 0, digests: 0, starts: 0, counts: 0 },
    ]);
    expect(report.abandonedKeptUntil).toBe(true);
  });

  it('of 50 claims of one start across three stores one is granted, all 50 reuse its session, a shared limit holds', async () => {
    const { races, kept } = await worker.call<{ races: unknown; kept: unknown }>('/start-races');
    expect(races).toEqual(kept);
  });

  it('rejects with a D1StoreError that says how to fix a missing schema', async () => {
    const report = await worker.call<Record<string, unknown>>('/missing-schema');
    expect(report).toMatchObject({
      threw: true,
      name: 'D1StoreError',
      code: 'store_error',
      failure: 'schema_missing',
    });
    expect(report.message).toMatch(/^D1Store\.get failed: .*wrangler d1 migrations apply/);
  });

  it('rejects a row it did not write as malformed', async () => {
    const report = await worker.call<Record<string, unknown>>('/malformed');
    expect(report).toMatchObject({ threw: true, name: 'D1StoreError', failure: 'malformed' });
  });

  it('refuses something that is not a D1 binding at construction', async () => {
    const report = await worker.call<Record<string, unknown>>('/not-a-binding');
    expect(report).toMatchObject({ threw: true, name: 'D1StoreError', code: 'store_error' });
    expect(report.message).toMatch(/\[\[d1_databases\]\]/);
  });
});
