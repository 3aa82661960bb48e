import type { PGlite } from '@electric-sql/pglite';
import { createReceiver, type VerificationCompletedEvent } from '@faceverify/core';
import { fixturePayload, signedDelivery, storeContractCases } from '@faceverify/core/testing';
import { startPGlite } from '@faceverify/test-support/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteStore } from '../src/pglite.js';
import { uniquePrefix } from './support/pools.js';

let db: PGlite;
// Starting PGlite (its WebAssembly build) takes seconds on a busy machine: not a test's time.
beforeAll(async () => {
  db = await startPGlite();
}, 60_000);
afterAll(() => db?.close());

describe('PGliteStore keeps the Store contract', () => {
  const cases = storeContractCases(async () => {
    const store = new PGliteStore({ db, prefix: uniquePrefix('pglite') });
    await store.migrate();
    return store;
  });
  for (const check of cases) it(`${check.name} [PGliteStore]`, check.run);
});

describe('PGliteStore', () => {
  it('needs a PGlite instance', () => {
    expect(() => new PGliteStore({} as { db: PGlite })).toThrow(/needs `db`/);
  });

  it('a webhook for "mia\\udbff" neither delivers the session of "mia\\ufffd" (both are U+FFFD in UTF-8) nor fails', async () => {
    const secret = 'whsec_pglite_lone_surrogate_0123';
    const delivered: VerificationCompletedEvent[] = [];
    const store = new PGliteStore({ db, prefix: uniquePrefix('surrogate') });
    await store.migrate();
    const receiver = createReceiver({
      secret,
      // track() needs a client; nothing here asks the service (webhooks are not confirmed).
      client: { apiKey: 'fv_test_pglite_surrogate', baseUrl: 'http://127.0.0.1:9' },
      confirmWebhooks: false,
      store,
      logger: false,
    }).on('verification.completed', (event) => {
      delivered.push(event);
    });
    await receiver.track('tok_pglite_replacement', 'mia\ufffd');
    await expect(receiver.track('tok_pglite_lone', 'mia\udbff')).rejects.toThrow(/surrogate/);

    const lone = fixturePayload({ external_user_id: 'mia\udbff' });
    expect((await receiver.receive(await signedDelivery(lone, { secret }))).status).toBe(200);
    expect(delivered).toEqual([]);
    const own = fixturePayload({ external_user_id: 'mia\ufffd' });
    expect((await receiver.receive(await signedDelivery(own, { secret }))).status).toBe(200);
    expect(delivered.map((event) => event.sessionToken)).toEqual(['tok_pglite_replacement']);
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
