import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';
import { trackedSession } from './support/records.js';

const DAY = 86_400_000;

async function rowCount(pool: ReturnType<typeof connect>, table: string): Promise<number> {
  const { rows } = await pool.query(`SELECT count(*)::integer AS n FROM ${table}`);
  return rows[0].n;
}

describe('retention (rule 8: nothing is kept forever)', () => {
  it('deletes records past their time and expired digests, in bounded batches', async () => {
    const pool = connect();
    const store = new PostgresStore({ pool, prefix: uniquePrefix('retention'), pruneBatch: 40 });
    await store.migrate();
    const { sessions, digests } = store.tables;
    const t0 = 1_000;
    // 100 open records a day past expiry and due time, 100 closed past retention, 10 live.
    for (let i = 0; i < 100; i++) {
      await store.insert({ record: trackedSession({ expiresAt: t0, dueAt: t0 }), now: t0 });
      const closed = trackedSession({ dueAt: t0 });
      await store.insert({ record: closed, now: t0 });
      await store.lease({ key: closed.key, owner: 'o', now: t0, leaseMs: 10 });
      await store.settle({
        key: closed.key,
        owner: 'o',
        update: { state: 'completed', retainMs: 1_000 },
        now: t0,
      });
      await store.remember({ digest: `gone_${i}`, ttlMs: 1_000, now: t0 });
    }
    const live = Array.from({ length: 10 }, () => trackedSession({ expiresAt: t0 + 10 * DAY }));
    for (const record of live) await store.insert({ record, now: t0 });
    await store.remember({ digest: 'kept', ttlMs: 10 * DAY, now: t0 });
    expect(await rowCount(pool, sessions)).toBe(210);

    const later = t0 + 2 * DAY;
    // Readers see none of them even before they are deleted.
    expect((await store.counts({ now: later })).pending).toBe(10);
    expect(await store.prune({ now: later })).toEqual({ sessions: 40, digests: 40 });
    expect(await rowCount(pool, sessions)).toBe(170);
    // Every sweep runs one step of the same size.
    await store.leaseDue({ now: later, limit: 0, owner: 'w', leaseMs: 1_000 });
    expect(await rowCount(pool, sessions)).toBe(130);
    expect(await store.prune({ now: later, limit: 1_000 })).toEqual({ sessions: 120, digests: 20 });
    expect(await store.prune({ now: later })).toEqual({ sessions: 0, digests: 0 });
    expect(await rowCount(pool, sessions)).toBe(10);
    expect(await rowCount(pool, digests)).toBe(1);
    expect(await store.remember({ digest: 'kept', ttlMs: DAY, now: later })).toBe(false);
    expect(await store.remember({ digest: 'gone_1', ttlMs: DAY, now: later })).toBe(true);
  });

  it('lets an open record be dropped only a day after both its expiry and due time', async () => {
    const pool = connect();
    const store = new PostgresStore({ pool, prefix: uniquePrefix('open_ttl') });
    await store.migrate();
    const record = trackedSession({ expiresAt: 1_000, dueAt: 5_000 });
    await store.insert({ record, now: 0 });
    expect(await store.get({ key: record.key, now: 5_000 + DAY - 1 })).toBeDefined();
    expect(await store.get({ key: record.key, now: 5_000 + DAY })).toBeUndefined();
    // A lease moves the due time, and with it the record's end.
    await store.lease({ key: record.key, owner: 'w', now: 5_000, leaseMs: 2 * DAY });
    expect(await store.get({ key: record.key, now: 5_000 + 2 * DAY })).toBeDefined();
  });

  it('deletes starts whose claim lapsed and whose session expired, and counts past their day', async () => {
    const pool = connect();
    const store = new PostgresStore({ pool, prefix: uniquePrefix('starts_ttl'), pruneBatch: 40 });
    await store.migrate();
    const { starts, startCounts } = store.tables;
    const t0 = 1_000;
    const claim = (startKey: string, now: number) =>
      store.claimStart({
        startKey,
        externalUserId: 'u1:retained',
        owner: startKey,
        now,
        claimMs: 60_000,
        counters: [{ key: `n1:u:${startKey}`, ttlMs: DAY }],
      });
    // A claim that lapses; one whose session expires at t0 + 30 min; one claimed later.
    expect((await claim('s1:lapsed', t0)).claim).toBe('granted');
    expect((await claim('s1:inserted', t0)).claim).toBe('granted');
    await store.insert({
      record: trackedSession({ externalUserId: 'u1:retained', expiresAt: t0 + 1_800_000 }),
      now: t0,
      start: { startKey: 's1:inserted', owner: 's1:inserted' },
    });
    expect((await claim('s1:later', t0 + DAY)).claim).toBe('granted');
    expect(await rowCount(pool, starts)).toBe(3);
    expect(await rowCount(pool, startCounts)).toBe(3);

    // A sweep at t0 + 2 min: the lapsed claim goes, the session's start stays.
    await store.leaseDue({ now: t0 + 120_000, limit: 0, owner: 'w', leaseMs: 1_000 });
    expect(await rowCount(pool, starts)).toBe(2);
    // Past the session's expiry and the first counts' day: only the later claim is left.
    await store.prune({ now: t0 + DAY + 1 });
    expect(await rowCount(pool, starts)).toBe(1);
    expect(await rowCount(pool, startCounts)).toBe(1);
  });
});
