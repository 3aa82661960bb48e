import { type D1Database, D1Store } from '../../src/index.js';
import { SELECT_DUE, SHARED } from '../../src/statements.js';
import { countingDatabase } from './counting-database.js';
import { seedRecords } from './seed-records.js';

const NOW = Date.UTC(2030, 0, 1);

/**
 * Contract 7: what leaseDue reads with many records tracked and few due. Returns the rows D1
 * reports read by the whole leaseDue batch, and SQLite's plan for the due query; and the same
 * for dueSummary (contract 10), read first.
 */
export async function scalingReport(db: D1Database) {
  const tracked = 5000;
  const due = 5;
  await seedRecords(db, { prefix: 'later_', count: tracked, dueAt: NOW + 3_600_000, now: NOW });
  await seedRecords(db, { prefix: 'due_', count: due, dueAt: NOW - 1, now: NOW });
  const summaryCounter = countingDatabase(db);
  const summary = await new D1Store({ db: summaryCounter.db }).dueSummary({ now: NOW });
  const { results: summaryPlan } = await db
    .prepare(`EXPLAIN QUERY PLAN ${SHARED.dueSummary}`)
    .bind(NOW)
    .all<{ detail: string }>();
  const counter = countingDatabase(db);
  const leased = await new D1Store({ db: counter.db }).leaseDue({
    owner: 'scaling',
    now: NOW,
    leaseMs: 60_000,
    limit: 100,
  });
  const { results: plan } = await db
    .prepare(`EXPLAIN QUERY PLAN ${SELECT_DUE}`)
    .bind(NOW, 100)
    .all<{ detail: string }>();
  return {
    tracked: tracked + due,
    due,
    leased: leased.length,
    rowsRead: counter.traffic.rowsRead,
    statements: counter.traffic.statements,
    roundTrips: counter.traffic.roundTrips,
    plan: plan.map((row) => row.detail),
    dueSummary: {
      due: summary.due,
      rowsRead: summaryCounter.traffic.rowsRead,
      plan: summaryPlan.map((row) => row.detail),
    },
  };
}
