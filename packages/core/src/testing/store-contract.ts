import type { Store, StoredResult, TrackedSession } from '../store/store.js';
import { fixturePayload } from './fixture-payload.js';

/** One check of the Store contract, runnable by any test runner. */
export interface StoreContractCase {
  name: string;
  run: () => Promise<void>;
}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`Store contract: ${message}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sequence = 0;
function session(overrides: Partial<TrackedSession> = {}): TrackedSession {
  const now = Date.now();
  const key = overrides.key ?? `tok_${now}_${++sequence}_${Math.random().toString(36).slice(2)}`;
  return {
    key,
    token: key,
    externalUserId: `user_${sequence}`,
    createdAt: now,
    expiresAt: now + 60_000,
    state: 'pending',
    dueAt: now,
    attempts: 0,
    ...overrides,
  };
}

function result(): StoredResult {
  return { payload: fixturePayload(), source: 'webhook', receivedAt: Date.now() };
}

/**
 * The atomicity contract of `Store` as runnable checks. Every Store implementation must
 * pass all of them; `createStore` must return a new, empty store each time.
 *
 * @example
 * for (const check of storeContractCases(() => new MyStore())) it(check.name, check.run);
 */
export function storeContractCases(createStore: () => Store | Promise<Store>): StoreContractCase[] {
  const withStore = (name: string, body: (store: Store) => Promise<void>): StoreContractCase => ({
    name,
    run: async () => body(await createStore()),
  });
  return [
    withStore('insert adds once, get returns a copy', async (store) => {
      const record = session();
      expect(await store.insert(record), 'first insert succeeds');
      expect(!(await store.insert(record)), 'second insert of the same key fails');
      const read = await store.get(record.key);
      expect(read?.externalUserId === record.externalUserId, 'get returns the record');
      read!.state = 'completed';
      expect((await store.get(record.key))?.state === 'pending', 'changing a copy changes nothing');
      expect((await store.get('absent')) === undefined, 'unknown key is undefined');
    }),
    withStore('findByUser lists open and retained records of one user only', async (store) => {
      const a = session({ externalUserId: 'alice' });
      const b = session({ externalUserId: 'alice' });
      await store.insert(a);
      await store.insert(b);
      await store.insert(session({ externalUserId: 'bob' }));
      const owner = 'o1';
      await store.lease(b.key, owner, Date.now(), 1000);
      await store.settle(b.key, owner, { state: 'completed', retainMs: 60_000 }, Date.now());
      const found = await store.findByUser('alice');
      expect(found.length === 2, `two records for alice, got ${found.length}`);
      expect(
        found.some((r) => r.key === b.key && r.state === 'completed'),
        'closed one kept',
      );
      expect((await store.findByUser('nobody')).length === 0, 'unknown user has none');
    }),
    withStore('remember is true once per digest until its ttl passes', async (store) => {
      const digest = `d_${Math.random()}`;
      expect(await store.remember(digest, 60, Date.now()), 'first remember');
      expect(!(await store.remember(digest, 60, Date.now())), 'second remember');
      await sleep(90);
      expect(await store.remember(digest, 60_000, Date.now()), 'after ttl');
      await store.forget(digest);
      expect(await store.remember(digest, 60_000, Date.now()), 'after forget');
    }),
    withStore('remember grants one of many concurrent callers', async (store) => {
      const digest = `c_${Math.random()}`;
      const results = await Promise.all(
        Array.from({ length: 25 }, () => store.remember(digest, 60_000, Date.now())),
      );
      expect(results.filter(Boolean).length === 1, 'exactly one caller wins');
    }),
    withStore('lease: one owner at a time, renewable, taken over after expiry', async (store) => {
      const record = session();
      await store.insert(record);
      const now = Date.now();
      expect(await store.lease(record.key, 'a', now, 80), 'a leases');
      expect(!(await store.lease(record.key, 'b', now, 80)), 'b is refused while a holds it');
      expect(await store.lease(record.key, 'a', now, 80), 'a renews');
      await sleep(120);
      const taken = await store.lease(record.key, 'b', Date.now(), 1000);
      expect(taken?.lease?.owner === 'b', 'b takes over after the lease passed');
      expect(
        !(await store.settle(record.key, 'a', { state: 'completed', retainMs: 1000 }, Date.now())),
        'a can no longer settle',
      );
    }),
    withStore('lease grants one of many concurrent owners', async (store) => {
      const record = session();
      await store.insert(record);
      const grants = await Promise.all(
        Array.from({ length: 25 }, (_, i) => store.lease(record.key, `o${i}`, Date.now(), 5000)),
      );
      expect(grants.filter(Boolean).length === 1, 'exactly one lease granted');
    }),
    withStore(
      'leaseDue returns due open records earliest first, up to the limit',
      async (store) => {
        const now = Date.now();
        const late = session({ dueAt: now - 10 });
        const early = session({ dueAt: now - 500 });
        const future = session({ dueAt: now + 60_000 });
        const closed = session({ dueAt: now - 1000 });
        for (const r of [late, early, future, closed]) await store.insert(r);
        await store.lease(closed.key, 'x', now, 1000);
        await store.settle(closed.key, 'x', { state: 'expired', retainMs: 60_000 }, now);
        const first = await store.leaseDue(Date.now(), 1, 'w', 5000);
        expect(first.length === 1 && first[0]!.key === early.key, 'earliest due first');
        const rest = await store.leaseDue(Date.now(), 10, 'w2', 5000);
        expect(rest.length === 1 && rest[0]!.key === late.key, 'then the other due one only');
        expect(
          (await store.leaseDue(Date.now(), 10, 'w3', 5000)).length === 0,
          'leased ones are not due',
        );
      },
    ),
    withStore('a lease that passes makes the record due again (crash recovery)', async (store) => {
      const record = session({ dueAt: Date.now() - 1 });
      await store.insert(record);
      expect((await store.leaseDue(Date.now(), 10, 'crashed', 60)).length === 1, 'leased');
      await sleep(100);
      const again = await store.leaseDue(Date.now(), 10, 'rescuer', 1000);
      expect(again.length === 1 && again[0]!.lease?.owner === 'rescuer', 'picked up again');
    }),
    withStore('concurrent leaseDue grants each record to one worker', async (store) => {
      const now = Date.now();
      const keys = new Set<string>();
      for (let i = 0; i < 60; i++) {
        const r = session({ dueAt: now - i });
        keys.add(r.key);
        await store.insert(r);
      }
      const batches = await Promise.all(
        ['w1', 'w2', 'w3'].flatMap((w) => [
          store.leaseDue(Date.now(), 15, w, 5000),
          store.leaseDue(Date.now(), 15, w, 5000),
        ]),
      );
      const granted = batches.flat().map((r) => r.key);
      expect(granted.length === 60, `all 60 granted, got ${granted.length}`);
      expect(new Set(granted).size === 60, 'no record granted twice');
    }),
    withStore('settle needs the lease and reschedules', async (store) => {
      const record = session();
      await store.insert(record);
      expect(
        !(await store.settle(
          record.key,
          'nobody',
          { state: 'pending', dueAt: 0, attempts: 1 },
          Date.now(),
        )),
        'settle without lease fails',
      );
      await store.lease(record.key, 'a', Date.now(), 5000);
      expect(
        await store.settle(
          record.key,
          'a',
          { state: 'pending', dueAt: Date.now() + 60_000, attempts: 1 },
          Date.now(),
        ),
        'owner settles',
      );
      const read = await store.get(record.key);
      expect(read?.attempts === 1 && read.lease === undefined, 'attempts written, lease ended');
      expect(
        (await store.leaseDue(Date.now(), 10, 'w', 1000)).length === 0,
        'not due before its time',
      );
    }),
    withStore('attachResult stores the first result of an open record only', async (store) => {
      const record = session({ dueAt: Date.now() + 60_000 });
      await store.insert(record);
      expect(
        (await store.attachResult(record.key, result(), Date.now())) === 'attached',
        'attached',
      );
      expect(
        (await store.attachResult(record.key, result(), Date.now())) === 'already-attached',
        'second is refused',
      );
      const due = await store.leaseDue(Date.now(), 10, 'w', 1000);
      expect(
        due.length === 1 && due[0]!.state === 'delivering' && due[0]!.result,
        'due at once, delivering',
      );
      await store.settle(record.key, 'w', { state: 'completed', retainMs: 60_000 }, Date.now());
      expect(
        (await store.attachResult(record.key, result(), Date.now())) === 'closed',
        'closed stays closed',
      );
      expect((await store.attachResult('absent', result(), Date.now())) === 'missing', 'missing');
    }),
    withStore(
      'a result attached during a lease survives the owner settling pending',
      async (store) => {
        const record = session();
        await store.insert(record);
        await store.lease(record.key, 'poller', Date.now(), 5000);
        expect(
          (await store.attachResult(record.key, result(), Date.now())) === 'attached',
          'attached while leased',
        );
        expect(!(await store.lease(record.key, 'webhook', Date.now(), 5000)), 'lease still held');
        await store.settle(
          record.key,
          'poller',
          { state: 'pending', dueAt: Date.now() + 60_000, attempts: 1 },
          Date.now(),
        );
        const due = await store.leaseDue(Date.now(), 10, 'w', 1000);
        expect(
          due.length === 1 && due[0]!.state === 'delivering' && due[0]!.result?.payload,
          'result kept, due now',
        );
      },
    ),
    withStore('a record completed with a result keeps it', async (store) => {
      const record = session();
      await store.insert(record);
      await store.lease(record.key, 'a', Date.now(), 5000);
      const delivered = result();
      await store.settle(
        record.key,
        'a',
        { state: 'completed', retainMs: 60_000, result: delivered },
        Date.now(),
      );
      const read = await store.get(record.key);
      expect(read?.state === 'completed', 'completed');
      expect(
        read?.result?.payload.external_user_id === delivered.payload.external_user_id &&
          read.result.source === delivered.source,
        'the result is kept with the closed record',
      );
      const [byUser] = await store.findByUser(record.externalUserId);
      expect(byUser?.result?.payload.status === delivered.payload.status, 'findByUser sees it');
    }),
    withStore('closed records disappear after their retention', async (store) => {
      const record = session();
      await store.insert(record);
      await store.lease(record.key, 'a', Date.now(), 5000);
      await store.settle(record.key, 'a', { state: 'completed', retainMs: 60 }, Date.now());
      expect((await store.get(record.key))?.state === 'completed', 'kept for now');
      await sleep(120);
      expect((await store.get(record.key)) === undefined, 'gone after retention');
      expect(
        (await store.findByUser(record.externalUserId)).length === 0,
        'gone from the user index',
      );
    }),
    withStore('counts reports records by state', async (store) => {
      await store.insert(session());
      const done = session();
      await store.insert(done);
      await store.lease(done.key, 'a', Date.now(), 5000);
      await store.settle(done.key, 'a', { state: 'completed', retainMs: 60_000 }, Date.now());
      const counts = await store.counts();
      expect(counts.pending === 1 && counts.completed === 1, JSON.stringify(counts));
    }),
  ];
}
