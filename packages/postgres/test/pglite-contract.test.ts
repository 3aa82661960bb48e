import { PGlite } from '@electric-sql/pglite';
import { storeContractCases } from '@faceverify/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteStore } from '../src/pglite.js';
import { uniquePrefix } from './support/pools.js';

const db = new PGlite();
// Starting PGlite (its WebAssembly build) takes seconds on a busy machine: not a test's time.
beforeAll(() => db.waitReady, 60_000);
afterAll(() => db.close());

describe('PGliteStore keeps the Store contract', () => {
  const cases = storeContractCases(async () => {
    const store = new PGliteStore({ db, prefix: uniquePrefix('pglite') });
    await store.migrate();
    return store;
  });
  for (const check of cases) it(check.name, check.run);
});

describe('PGliteStore', () => {
  it('needs a PGlite instance', () => {
    expect(() => new PGliteStore({} as { db: PGlite })).toThrow(/needs `db`/);
  });

  it('runs settleWith exclusively: statements from outside wait for its commit', async () => {
    const store = new PGliteStore({ db, prefix: uniquePrefix('exclusive') });
    await store.migrate();
    const record = {
      key: 'tok_exclusive',
      token: 'tok_exclusive',
      externalUserId: 'u1',
      createdAt: 0,
      expiresAt: 60_000,
      state: 'pending' as const,
      dueAt: 0,
      attempts: 0,
    };
    await store.insert({ record, now: 0 });
    await store.lease({ key: record.key, owner: 'a', now: 0, leaseMs: 10_000 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const order: string[] = [];
    const settling = store.settleWith(
      { key: record.key, owner: 'a', now: 1, update: { state: 'completed', retainMs: 60_000 } },
      async (tx) => {
        entered();
        await gate;
        order.push('work done');
        return (await tx.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n;
      },
    );
    await inside;
    // Issued while the transaction is open; PGlite runs it only after the commit.
    const read = store.get({ key: record.key, now: 2 }).then((session) => {
      order.push(`read ${session?.state}`);
    });
    release();
    expect(await settling).toEqual({ settled: true, value: 1 });
    await read;
    expect(order).toEqual(['work done', 'read completed']);
  });
});
