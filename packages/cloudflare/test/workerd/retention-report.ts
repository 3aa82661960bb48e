import { type D1Database, D1Store } from '../../src/index.js';

const T0 = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;

async function rowCount(db: D1Database, table: string): Promise<number> {
  const { results } = await db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).all<{ n: number }>();
  return results[0]?.n ?? -1;
}

/**
 * Contracts 6 and 8 at the level of rows: closed records and digests past their time are
 * invisible at once and deleted by leaseDue, at most `purgeBatchSize` of each per call; an
 * open record is dropped a day past both its expiry and its due time; starts whose claim
 * lapsed and counts past their period go the same way.
 */
export async function retentionReport(db: D1Database, reset: () => Promise<unknown>) {
  await reset();
  const store = new D1Store({ db, purgeBatchSize: 10 });
  for (let i = 0; i < 25; i++) {
    const key = `closed_${i}`;
    await store.insert({
      record: {
        key,
        externalUserId: `u${i}`,
        createdAt: T0,
        expiresAt: T0 + 60_000,
        state: 'pending',
        dueAt: T0 + 60_000,
        attempts: 0,
      },
      now: T0,
    });
    await store.lease({ key, owner: 'o', now: T0, leaseMs: 1000 });
    await store.settle({
      key,
      owner: 'o',
      update: { state: 'completed', retainMs: 1000 },
      now: T0,
    });
    await store.remember({ digest: `d${i}`, ttlMs: 1000, now: T0 });
  }
  await store.insert({
    record: {
      key: 'abandoned',
      externalUserId: 'a',
      createdAt: T0,
      expiresAt: T0 + 10,
      state: 'pending',
      dueAt: T0 + 5,
      attempts: 0,
    },
    now: T0,
  });
  // Starts whose claim lapses at T0 + 1000, each with a count of its own ending then.
  for (let i = 0; i < 12; i++) {
    await store.claimStart({
      startKey: `s1:${i}`,
      externalUserId: `u${i}`,
      owner: 'o',
      now: T0,
      claimMs: 1000,
      counters: [{ key: `n1:u:${i}`, ttlMs: 1000 }],
    });
  }
  const rows = async () => ({
    records: await rowCount(db, 'faceverify_records'),
    digests: await rowCount(db, 'faceverify_digests'),
    starts: await rowCount(db, 'faceverify_starts'),
    counts: await rowCount(db, 'faceverify_start_counts'),
  });
  const report = {
    before: await rows(),
    visibleJustBefore: (await store.get({ key: 'closed_0', now: T0 + 999 })) !== undefined,
    visibleAt: (await store.get({ key: 'closed_0', now: T0 + 1000 })) !== undefined,
    rememberedAgainAt: await store.remember({ digest: 'd0', ttlMs: 1000, now: T0 + 1000 }),
    rowsWhileUnswept: await rows(),
    afterSweeps: [] as Awaited<ReturnType<typeof rows>>[],
    abandonedKeptUntil: false,
  };
  // The abandoned record was leased by none of these sweeps: it is due, but each leaseDue is
  // asked for 0 records, so only its purge time decides.
  for (let i = 0; i < 3; i++) {
    await store.leaseDue({ owner: 'sweeper', now: T0 + 1000, leaseMs: 1000, limit: 0 });
    report.afterSweeps.push(await rows());
  }
  report.abandonedKeptUntil =
    (await store.get({ key: 'abandoned', now: T0 + DAY + 9 })) !== undefined &&
    (await store.get({ key: 'abandoned', now: T0 + DAY + 10 })) === undefined;
  await store.leaseDue({ owner: 'sweeper', now: T0 + DAY + 10, leaseMs: 1000, limit: 0 });
  report.afterSweeps.push(await rows());
  return report;
}
