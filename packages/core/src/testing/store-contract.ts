import { unmatchedKey } from '../store/record-keys.js';
import type { Store, StoredResult, TrackedSession } from '../store/store.js';
import { fixturePayload } from './fixture-payload.js';
import { startContractCases } from './start-contract.js';

/** One check of the Store contract, runnable by any test runner. */
export interface StoreContractCase {
  name: string;
  run: () => Promise<void>;
}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`Store contract: ${message}`);
}

// Times are passed to the store, never read by it: the cases move a clock of their own, so
// expiry and lease hand-over are tested exactly, without waiting.
const T0 = Date.UTC(2030, 0, 1);

let sequence = 0;
function session(overrides: Partial<TrackedSession> = {}): TrackedSession {
  const key = overrides.key ?? `tok_${++sequence}_${Math.random().toString(36).slice(2)}`;
  return {
    key,
    token: key,
    externalUserId: `user_${sequence}_${Math.random().toString(36).slice(2)}`,
    createdAt: T0,
    expiresAt: T0 + 60_000,
    state: 'pending',
    dueAt: T0,
    attempts: 0,
    ...overrides,
  };
}

function result(): StoredResult {
  return { payload: fixturePayload(), source: 'webhook', receivedAt: T0 };
}

/**
 * The longest session token and external user id every store holds: longer ones are refused
 * before anything is sent to the service.
 */
const MAX_ID_LENGTH = 256;

const completed = (retainMs = 60_000) => ({ state: 'completed' as const, retainMs });

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
  const insert = async (store: Store, record: TrackedSession) =>
    (await store.insert({ record, now: T0 })).inserted;
  // A record whose handlers failed on every attempt: closed as failed at T0 with its result.
  const deadLetter = async (store: Store, retainMs = 60_000): Promise<TrackedSession> => {
    const { token: _token, ...record } = session();
    await insert(store, record);
    await store.attachResult({ key: record.key, result: result(), now: T0 });
    await store.lease({ key: record.key, owner: 'dl', now: T0, leaseMs: 1000 });
    const update = { state: 'failed' as const, retainMs, attempts: 5 };
    expect(
      await store.settle({ key: record.key, owner: 'dl', update, now: T0 }),
      'closed as failed',
    );
    return record;
  };
  return [
    withStore('insert adds once, get returns a copy', async (store) => {
      const record = session();
      expect(await insert(store, record), 'first insert succeeds');
      expect(!(await insert(store, record)), 'second insert of the same key fails');
      const read = await store.get({ key: record.key, now: T0 });
      expect(read?.externalUserId === record.externalUserId, 'get returns the record');
      read!.state = 'completed';
      expect(
        (await store.get({ key: record.key, now: T0 }))?.state === 'pending',
        'changing a copy changes nothing',
      );
      expect((await store.get({ key: 'absent', now: T0 })) === undefined, 'unknown key');
    }),
    withStore('findByUser lists open and retained records of one user only', async (store) => {
      const a = session({ externalUserId: 'alice' });
      const b = session({ externalUserId: 'alice' });
      await insert(store, a);
      await insert(store, b);
      await insert(store, session({ externalUserId: 'bob' }));
      await store.lease({ key: b.key, owner: 'o1', now: T0, leaseMs: 1000 });
      await store.settle({ key: b.key, owner: 'o1', update: completed(), now: T0 });
      const found = await store.findByUser({ externalUserId: 'alice', now: T0, limit: 10 });
      expect(found.length === 2, `two records for alice, got ${found.length}`);
      expect(
        found.some((r) => r.key === b.key && r.state === 'completed'),
        'closed one kept',
      );
      expect(
        (await store.findByUser({ externalUserId: 'nobody', now: T0, limit: 10 })).length === 0,
        'unknown user has none',
      );
    }),
    withStore(
      'findByUser returns open records first, then the latest closed, up to limit',
      async (store) => {
        const user = `bounded_${Math.random()}`;
        const closedKeys: string[] = [];
        for (let i = 0; i < 5; i++) {
          const record = session({ externalUserId: user });
          await insert(store, record);
          await store.lease({ key: record.key, owner: 'o', now: T0, leaseMs: 1000 });
          await store.settle({
            key: record.key,
            owner: 'o',
            update: completed(60_000 + i),
            now: T0,
          });
          closedKeys.push(record.key);
        }
        const open = session({ externalUserId: user });
        await insert(store, open);
        const found = await store.findByUser({ externalUserId: user, now: T0, limit: 3 });
        expect(found.length === 3, `limit respected, got ${found.length}`);
        expect(found[0]!.key === open.key, 'the open record comes first');
        expect(
          found[1]!.key === closedKeys[4] && found[2]!.key === closedKeys[3],
          'then the closed records that are kept longest',
        );
      },
    ),
    withStore(
      'insert keeps at most maxOpenPerUser open records, displacing the oldest',
      async (store) => {
        const user = `capped_${Math.random()}`;
        const first = session({ externalUserId: user, createdAt: T0 });
        const second = session({ externalUserId: user, createdAt: T0 + 1 });
        const third = session({ externalUserId: user, createdAt: T0 + 2 });
        const options = { now: T0 + 5, maxOpenPerUser: 2, displacedRetainMs: 60_000 };
        await store.insert({ record: first, ...options });
        expect(
          (await store.insert({ record: second, ...options })).displaced.length === 0,
          'room for two',
        );
        const outcome = await store.insert({ record: third, ...options });
        expect(outcome.inserted, 'third inserted');
        expect(
          outcome.displaced.length === 1 && outcome.displaced[0]!.key === first.key,
          'the oldest is displaced',
        );
        const displaced = await store.get({ key: first.key, now: T0 + 5 });
        expect(displaced?.state === 'expired', `displaced record expired, got ${displaced?.state}`);
        expect(
          !(await store.lease({ key: first.key, owner: 'w', now: T0 + 5, leaseMs: 1000 })),
          'a displaced record is no longer worked on',
        );
        const counts = await store.counts({ now: T0 + 5 });
        expect(counts.pending === 2 && counts.expired === 1, JSON.stringify(counts));
        expect(
          !(await store.get({ key: first.key, now: T0 + 5 + 60_001 })),
          'gone after its retention',
        );
      },
    ),
    withStore('remember is true once per digest until its ttl passes', async (store) => {
      const digest = `d_${Math.random()}`;
      expect(await store.remember({ digest, ttlMs: 60, now: T0 }), 'first remember');
      expect(!(await store.remember({ digest, ttlMs: 60, now: T0 + 59 })), 'second remember');
      expect(await store.remember({ digest, ttlMs: 60_000, now: T0 + 60 }), 'after ttl');
      await store.forget({ digest });
      expect(await store.remember({ digest, ttlMs: 60_000, now: T0 + 61 }), 'after forget');
    }),
    withStore('remember grants one of many concurrent callers', async (store) => {
      const digest = `c_${Math.random()}`;
      const results = await Promise.all(
        Array.from({ length: 25 }, () => store.remember({ digest, ttlMs: 60_000, now: T0 })),
      );
      expect(results.filter(Boolean).length === 1, 'exactly one caller wins');
    }),
    withStore('lease: one owner at a time, renewable, taken over after expiry', async (store) => {
      const record = session();
      await insert(store, record);
      const key = record.key;
      expect(await store.lease({ key, owner: 'a', now: T0, leaseMs: 80 }), 'a leases');
      expect(!(await store.lease({ key, owner: 'b', now: T0 + 79, leaseMs: 80 })), 'b refused');
      expect(await store.lease({ key, owner: 'a', now: T0 + 40, leaseMs: 80 }), 'a renews');
      expect(
        !(await store.lease({ key, owner: 'b', now: T0 + 119, leaseMs: 80 })),
        'the renewal counts from its own time',
      );
      const taken = await store.lease({ key, owner: 'b', now: T0 + 120, leaseMs: 1000 });
      expect(taken?.lease?.owner === 'b', 'b takes over once the lease has passed');
      expect(
        !(await store.settle({ key, owner: 'a', update: completed(1000), now: T0 + 121 })),
        'a can no longer settle',
      );
    }),
    withStore('lease grants one of many concurrent owners', async (store) => {
      const record = session();
      await insert(store, record);
      const grants = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          store.lease({ key: record.key, owner: `o${i}`, now: T0, leaseMs: 5000 }),
        ),
      );
      expect(grants.filter(Boolean).length === 1, 'exactly one lease granted');
    }),
    withStore(
      'leaseDue returns due open records earliest first, up to the limit',
      async (store) => {
        const now = T0 + 10_000;
        const late = session({ dueAt: now - 10 });
        const early = session({ dueAt: now - 500 });
        const future = session({ dueAt: now + 60_000 });
        const closed = session({ dueAt: now - 1000 });
        for (const r of [late, early, future, closed]) await insert(store, r);
        await store.lease({ key: closed.key, owner: 'x', now, leaseMs: 1000 });
        await store.settle({
          key: closed.key,
          owner: 'x',
          update: { state: 'expired', retainMs: 60_000 },
          now,
        });
        const first = await store.leaseDue({ now, limit: 1, owner: 'w', leaseMs: 5000 });
        expect(first.length === 1 && first[0]!.key === early.key, 'earliest due first');
        const rest = await store.leaseDue({ now, limit: 10, owner: 'w2', leaseMs: 5000 });
        expect(rest.length === 1 && rest[0]!.key === late.key, 'then the other due one only');
        expect(
          (await store.leaseDue({ now, limit: 10, owner: 'w3', leaseMs: 5000 })).length === 0,
          'leased ones are not due',
        );
      },
    ),
    withStore('a lease that passes makes the record due again (crash recovery)', async (store) => {
      const record = session({ dueAt: T0 - 1 });
      await insert(store, record);
      expect(
        (await store.leaseDue({ now: T0, limit: 10, owner: 'crashed', leaseMs: 60 })).length === 1,
        'leased',
      );
      expect(
        (await store.leaseDue({ now: T0 + 59, limit: 10, owner: 'early', leaseMs: 1000 }))
          .length === 0,
        'not due while the lease holds',
      );
      const again = await store.leaseDue({
        now: T0 + 60,
        limit: 10,
        owner: 'rescuer',
        leaseMs: 1000,
      });
      expect(again.length === 1 && again[0]!.lease?.owner === 'rescuer', 'picked up again');
    }),
    withStore('concurrent leaseDue grants each record to one worker', async (store) => {
      const keys = new Set<string>();
      for (let i = 0; i < 60; i++) {
        const r = session({ dueAt: T0 - i });
        keys.add(r.key);
        await insert(store, r);
      }
      const batches = await Promise.all(
        ['w1', 'w2', 'w3'].flatMap((owner) => [
          store.leaseDue({ now: T0, limit: 15, owner, leaseMs: 5000 }),
          store.leaseDue({ now: T0, limit: 15, owner, leaseMs: 5000 }),
        ]),
      );
      const granted = batches.flat().map((r) => r.key);
      expect(granted.length === 60, `all 60 granted, got ${granted.length}`);
      expect(new Set(granted).size === 60, 'no record granted twice');
    }),
    withStore('settle needs the lease and reschedules', async (store) => {
      const record = session();
      await insert(store, record);
      const key = record.key;
      expect(
        !(await store.settle({
          key,
          owner: 'nobody',
          update: { state: 'pending', dueAt: 0, attempts: 1 },
          now: T0,
        })),
        'settle without lease fails',
      );
      await store.lease({ key, owner: 'a', now: T0, leaseMs: 5000 });
      expect(
        await store.settle({
          key,
          owner: 'a',
          update: { state: 'pending', dueAt: T0 + 60_000, attempts: 1 },
          now: T0,
        }),
        'owner settles',
      );
      const read = await store.get({ key, now: T0 });
      expect(read?.attempts === 1 && read.lease === undefined, 'attempts written, lease ended');
      expect(
        (await store.leaseDue({ now: T0 + 59_999, limit: 10, owner: 'w', leaseMs: 1000 }))
          .length === 0,
        'not due before its time',
      );
      expect(
        (await store.leaseDue({ now: T0 + 60_000, limit: 10, owner: 'w', leaseMs: 1000 }))
          .length === 1,
        'due at its time',
      );
    }),
    withStore('attachResult stores the first result of an open record only', async (store) => {
      const record = session({ dueAt: T0 + 60_000 });
      await insert(store, record);
      const key = record.key;
      expect(
        (await store.attachResult({ key, result: result(), now: T0 })) === 'attached',
        'attached',
      );
      expect(
        (await store.attachResult({ key, result: result(), now: T0 })) === 'already-attached',
        'second is refused',
      );
      const due = await store.leaseDue({ now: T0, limit: 10, owner: 'w', leaseMs: 1000 });
      expect(
        due.length === 1 && due[0]!.state === 'delivering' && due[0]!.result,
        'due at once, delivering',
      );
      await store.settle({ key, owner: 'w', update: completed(), now: T0 });
      expect(
        (await store.attachResult({ key, result: result(), now: T0 })) === 'closed',
        'closed stays closed',
      );
      expect(
        (await store.attachResult({ key: 'absent', result: result(), now: T0 })) === 'missing',
        'missing',
      );
    }),
    withStore(
      "the owner's result replaces the record's when it retries or closes, never when pending",
      async (store) => {
        const record = session();
        await insert(store, record);
        const key = record.key;
        const attached = result();
        await store.attachResult({ key, result: attached, now: T0 });
        const withoutLink = (reason: string): StoredResult => ({
          ...attached,
          payload: { ...attached.payload, frontImageUrl: '', reason },
        });
        const readReason = async () => (await store.get({ key, now: T0 }))?.result?.payload.reason;
        await store.lease({ key, owner: 'w', now: T0, leaseMs: 5000 });
        await store.settle({
          key,
          owner: 'w',
          update: { state: 'pending', dueAt: T0, attempts: 1, result: withoutLink('pending') },
          now: T0,
        });
        expect((await readReason()) === attached.payload.reason, 'pending keeps the attached one');
        await store.lease({ key, owner: 'w', now: T0, leaseMs: 5000 });
        await store.settle({
          key,
          owner: 'w',
          update: { state: 'delivering', dueAt: T0, attempts: 1, result: withoutLink('retry') },
          now: T0,
        });
        expect((await readReason()) === 'retry', 'a retry stores the result it will deliver');
        await store.lease({ key, owner: 'w', now: T0, leaseMs: 5000 });
        await store.settle({
          key,
          owner: 'w',
          update: { ...completed(), result: withoutLink('closed') },
          now: T0,
        });
        const closed = await store.get({ key, now: T0 });
        expect(
          closed?.result?.payload.reason === 'closed' && closed.result.payload.frontImageUrl === '',
          'a close stores the result delivered',
        );
      },
    ),
    withStore(
      'a result attached during a lease survives the owner settling pending',
      async (store) => {
        const record = session();
        await insert(store, record);
        const key = record.key;
        await store.lease({ key, owner: 'poller', now: T0, leaseMs: 5000 });
        expect(
          (await store.attachResult({ key, result: result(), now: T0 })) === 'attached',
          'attached while leased',
        );
        expect(
          !(await store.lease({ key, owner: 'webhook', now: T0, leaseMs: 5000 })),
          'lease still held',
        );
        await store.settle({
          key,
          owner: 'poller',
          update: { state: 'pending', dueAt: T0 + 60_000, attempts: 1 },
          now: T0,
        });
        const due = await store.leaseDue({ now: T0, limit: 10, owner: 'w', leaseMs: 1000 });
        expect(
          due.length === 1 && due[0]!.state === 'delivering' && due[0]!.result?.payload,
          'result kept, due now',
        );
      },
    ),
    withStore('a record completed with a result keeps it', async (store) => {
      const record = session();
      await insert(store, record);
      await store.lease({ key: record.key, owner: 'a', now: T0, leaseMs: 5000 });
      const delivered = result();
      await store.settle({
        key: record.key,
        owner: 'a',
        update: { state: 'completed', retainMs: 60_000, result: delivered },
        now: T0,
      });
      const read = await store.get({ key: record.key, now: T0 });
      expect(read?.state === 'completed', 'completed');
      expect(
        read?.result?.payload.external_user_id === delivered.payload.external_user_id &&
          read.result.source === delivered.source,
        'the result is kept with the closed record',
      );
      const [byUser] = await store.findByUser({
        externalUserId: record.externalUserId,
        now: T0,
        limit: 10,
      });
      expect(byUser?.result?.payload.status === delivered.payload.status, 'findByUser sees it');
    }),
    withStore('a record closed as failed keeps its result and attempts', async (store) => {
      const record = session();
      await insert(store, record);
      await store.attachResult({ key: record.key, result: result(), now: T0 });
      await store.lease({ key: record.key, owner: 'a', now: T0, leaseMs: 5000 });
      expect(
        await store.settle({
          key: record.key,
          owner: 'a',
          update: { state: 'failed', retainMs: 7_200_000, attempts: 20 },
          now: T0,
        }),
        'settled as failed',
      );
      const read = await store.get({ key: record.key, now: T0 });
      expect(read?.state === 'failed' && read.attempts === 20 && read.result, 'failed, kept');
      expect(
        (await store.leaseDue({ now: T0 + 3_600_000, limit: 10, owner: 'w', leaseMs: 1000 }))
          .length === 0,
        'a failed record is never due again',
      );
      expect((await store.counts({ now: T0 })).failed === 1, 'counted as failed');
    }),
    withStore('closed records disappear after their retention', async (store) => {
      const record = session();
      await insert(store, record);
      await store.lease({ key: record.key, owner: 'a', now: T0, leaseMs: 5000 });
      await store.settle({ key: record.key, owner: 'a', update: completed(60), now: T0 });
      expect(
        (await store.get({ key: record.key, now: T0 + 59 }))?.state === 'completed',
        'kept for now',
      );
      expect(
        (await store.get({ key: record.key, now: T0 + 60 })) === undefined,
        'gone after retention',
      );
      expect(
        (await store.findByUser({ externalUserId: record.externalUserId, now: T0 + 60, limit: 10 }))
          .length === 0,
        'gone from the user index',
      );
    }),
    // Issue 18, item 3: a value the store cannot hold would be delivered again and again.
    withStore(
      'holds every string a result can carry, bit for bit (NUL, lone surrogates, astral characters)',
      async (store) => {
        const odd = `nul\u0000 lone high\ud800 lone low\udc00 pair\u{1f600} bom\ufeff end`;
        const record = session({ externalUserId: `user_odd_${++sequence}` });
        await insert(store, record);
        const stored: StoredResult = {
          payload: fixturePayload({ external_user_id: odd, reason: odd, extra: { note: odd } }),
          source: 'webhook',
          receivedAt: T0,
        };
        expect(
          (await store.attachResult({ key: record.key, result: stored, now: T0 })) === 'attached',
          'a result with NUL and lone surrogates is attached',
        );
        const read = (await store.get({ key: record.key, now: T0 }))?.result?.payload;
        expect(read?.reason === odd, `reason read back as ${JSON.stringify(read?.reason)}`);
        expect(read?.external_user_id === odd, 'external_user_id read back bit for bit');
        expect(
          (read?.extra as { note?: unknown } | undefined)?.note === odd,
          'extra fields read back bit for bit',
        );
        const polled = session();
        await insert(store, polled);
        await store.lease({ key: polled.key, owner: 'a', now: T0, leaseMs: 5000 });
        expect(
          await store.settle({
            key: polled.key,
            owner: 'a',
            update: { ...completed(), result: stored },
            now: T0,
          }),
          'a closed record keeps such a result',
        );
        const closed = (await store.get({ key: polled.key, now: T0 }))?.result?.payload;
        expect(closed?.reason === odd, 'the closed record keeps it bit for bit');
      },
    ),
    withStore(
      `holds ids of up to ${MAX_ID_LENGTH} characters, and never matches two different ids`,
      async (store) => {
        // Ids that a store folding case, normalising Unicode, trimming or truncating would merge.
        const long = `${'\u{1f600}'.repeat(MAX_ID_LENGTH / 4)}${'x'.repeat(MAX_ID_LENGTH / 2 - 1)}`;
        const ids = [
          `${long}a`,
          `${long}b`,
          'caf\u00e9',
          'cafe\u0301',
          'Alice',
          'alice',
          'alice ',
          '\u0130stanbul',
          'i\u0307stanbul',
        ];
        expect(ids[0]!.length === MAX_ID_LENGTH, `the long id has ${ids[0]!.length} characters`);
        const records = ids.map((externalUserId, index) =>
          session({ key: `${long}${index}`, externalUserId }),
        );
        for (const record of records) {
          expect(
            await insert(store, record),
            `a record of ${JSON.stringify(record.externalUserId)}`,
          );
        }
        for (const record of records) {
          const byKey = await store.get({ key: record.key, now: T0 });
          expect(byKey?.key === record.key, 'a long key is read back bit for bit');
          expect(
            byKey?.externalUserId === record.externalUserId,
            'the id is read back bit for bit',
          );
          const found = await store.findByUser({
            externalUserId: record.externalUserId,
            now: T0,
            limit: 20,
          });
          expect(
            found.length === 1 && found[0]?.key === record.key,
            `findByUser(${JSON.stringify(record.externalUserId)}) finds its own record only, got ${found.length}`,
          );
        }
      },
    ),
    // UTF-8 has no form for a lone surrogate: a driver that writes U+FFFD instead would store
    // "x\ud800" and "x\udbff" as one id and match either with the other.
    withStore(
      'never matches two ids that differ in a lone surrogate: refused with a TypeError, or kept bit for bit',
      async (store) => {
        const user = `surrogate_${++sequence}_`;
        // Well-formed, and what a driver writes for a lone surrogate: always held.
        const replaced = session({ externalUserId: `${user}\ufffd` });
        expect(await insert(store, replaced), 'an id with U+FFFD is held');
        const kept: TrackedSession[] = [replaced];
        for (const lone of ['\ud800', '\udbff', '\udc00']) {
          const record = session({ externalUserId: `${user}${lone}` });
          const refused = await insert(store, record).then(
            (inserted) => {
              expect(inserted, `a record of ${JSON.stringify(record.externalUserId)} is new`);
              return undefined;
            },
            (error: unknown) => error,
          );
          if (refused === undefined) {
            kept.push(record);
            continue;
          }
          expect(
            refused instanceof TypeError && /surrogate/i.test(refused.message),
            `insert of ${JSON.stringify(record.externalUserId)} is refused with a TypeError naming the lone surrogate, got ${String(refused)}`,
          );
          expect(
            (await store.get({ key: record.key, now: T0 })) === undefined,
            'a refused record is not stored',
          );
        }
        for (const record of kept) {
          expect(
            (await store.get({ key: record.key, now: T0 }))?.externalUserId ===
              record.externalUserId,
            `the id ${JSON.stringify(record.externalUserId)} is read back bit for bit`,
          );
        }
        for (const lone of ['', '\ufffd', '\ud800', '\udbff', '\udc00', '\udfff']) {
          const externalUserId = `${user}${lone}`;
          const found: string[] = await store
            .findByUser({ externalUserId, now: T0, limit: 10 })
            .then(
              (records) => records.map((record) => record.key),
              (error: unknown) => {
                expect(
                  error instanceof TypeError && /surrogate/i.test(error.message),
                  `findByUser(${JSON.stringify(externalUserId)}) refuses with a TypeError naming the lone surrogate, got ${String(error)}`,
                );
                return [];
              },
            );
          const own = kept.filter((record) => record.externalUserId === externalUserId);
          expect(
            found.length === own.length && own.every((record) => found.includes(record.key)),
            `findByUser(${JSON.stringify(externalUserId)}) finds ${own.length} record(s), got ${found.length}`,
          );
        }
      },
    ),
    withStore('closing a record drops its token, by settle and by displacement', async (store) => {
      // Only an open session is polled, so a closed one needs no token: keeping it would leave
      // a credential in backups and replicas for the whole retention.
      const user = `closing_${Math.random()}`;
      const settled = session({ externalUserId: user, createdAt: T0 });
      await insert(store, settled);
      await store.lease({ key: settled.key, owner: 'a', now: T0, leaseMs: 5000 });
      const open = await store.get({ key: settled.key, now: T0 });
      expect(open?.token === settled.token, 'an open record keeps its token');
      await store.settle({ key: settled.key, owner: 'a', update: completed(), now: T0 });
      const closed = await store.get({ key: settled.key, now: T0 });
      expect(closed?.state === 'completed', `settled record completed, got ${closed?.state}`);
      expect(closed.token === undefined, 'a settled record has no token');
      const first = session({ externalUserId: user, createdAt: T0 + 1 });
      const options = { now: T0 + 2, maxOpenPerUser: 1, displacedRetainMs: 60_000 };
      await store.insert({ record: first, ...options });
      const { displaced } = await store.insert({
        record: session({ externalUserId: user, createdAt: T0 + 2 }),
        ...options,
      });
      expect(displaced[0]?.token === first.token, 'displaced records are returned as they were');
      const gone = await store.get({ key: first.key, now: T0 + 2 });
      expect(gone?.state === 'expired', `displaced record expired, got ${gone?.state}`);
      expect(gone.token === undefined, 'a displaced record has no token');
      const listed = await store.findByUser({ externalUserId: user, now: T0 + 2, limit: 10 });
      expect(
        listed.every((record) => record.state === 'pending' || record.token === undefined),
        'findByUser shows no token on closed records',
      );
    }),
    withStore('dead letters are listed oldest closed first, a page at a time', async (store) => {
      const letters: TrackedSession[] = [];
      for (let i = 0; i < 3; i++) letters.push(await deadLetter(store, 60_000 + i));
      const done = session();
      await insert(store, done);
      await store.lease({ key: done.key, owner: 'w', now: T0, leaseMs: 1000 });
      await store.settle({ key: done.key, owner: 'w', update: completed(), now: T0 });
      const first = await store.listDeadLetters({ now: T0 + 1, limit: 2 });
      expect(
        first.records.map((r) => r.key).join() === [letters[0]!.key, letters[1]!.key].join(),
        `the two oldest first, got ${first.records.map((r) => r.key).join()}`,
      );
      const listed = first.records[0]!;
      expect(listed.state === 'failed' && listed.attempts === 5, 'listed as failed, attempts kept');
      expect(listed.result?.payload.status === 'verified', 'a dead letter keeps its result');
      expect(listed.token === undefined, 'a dead letter has no token');
      expect(typeof first.cursor === 'string', 'a cursor while more remain');
      const second = await store.listDeadLetters({ now: T0 + 1, limit: 2, cursor: first.cursor });
      expect(
        second.records.length === 1 && second.records[0]!.key === letters[2]!.key,
        'the next page holds the rest',
      );
      expect(second.cursor === undefined, 'no cursor after the last page');
      const later = await store.listDeadLetters({ now: T0 + 60_000, limit: 10 });
      expect(
        later.records.length === 2 && later.records[0]!.key === letters[1]!.key,
        'a dead letter past its retention is no longer listed',
      );
    }),
    withStore('redeliverDeadLetter reopens a dead letter exactly once', async (store) => {
      const letter = await deadLetter(store);
      const now = T0 + 10;
      const reopened = await Promise.all(
        Array.from({ length: 10 }, () => store.redeliverDeadLetter({ key: letter.key, now })),
      );
      expect(reopened.filter(Boolean).length === 1, 'one of concurrent redeliveries applies');
      const read = await store.get({ key: letter.key, now });
      expect(
        read?.state === 'delivering' && read.attempts === 0 && read.dueAt === now,
        `delivering, due now, attempts reset, got ${JSON.stringify(read)}`,
      );
      expect(read.result?.payload.status === 'verified', 'the stored result is kept');
      expect(
        (await store.listDeadLetters({ now, limit: 10 })).records.length === 0,
        'no longer listed',
      );
      const leased = await store.leaseDue({ owner: 'w', now, leaseMs: 1000, limit: 10 });
      expect(leased.length === 1 && leased[0]!.key === letter.key, 'the next sweep leases it');
      expect(
        !(await store.redeliverDeadLetter({ key: letter.key, now })),
        'an open record is not redelivered again',
      );
      const counts = await store.counts({ now });
      expect(counts.failed === 0 && counts.delivering === 1, JSON.stringify(counts));
    }),
    withStore('discardDeadLetter removes a dead letter exactly once', async (store) => {
      const letter = await deadLetter(store);
      const now = T0 + 10;
      const discarded = await Promise.all(
        Array.from({ length: 10 }, () => store.discardDeadLetter({ key: letter.key, now })),
      );
      expect(discarded.filter(Boolean).length === 1, 'one of concurrent discards applies');
      expect(
        (await store.listDeadLetters({ now, limit: 10 })).records.length === 0,
        'no longer listed',
      );
      expect(
        !(await store.redeliverDeadLetter({ key: letter.key, now })),
        'a discarded letter is not redelivered',
      );
      expect(
        (await store.leaseDue({ owner: 'w', now, leaseMs: 1000, limit: 10 })).length === 0,
        'nothing is due',
      );
      expect((await store.counts({ now })).failed === 0, 'not counted as failed');
    }),
    withStore('redelivery and discard race: exactly one applies', async (store) => {
      const letter = await deadLetter(store);
      const now = T0 + 10;
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          i % 2 === 0
            ? store.redeliverDeadLetter({ key: letter.key, now })
            : store.discardDeadLetter({ key: letter.key, now }),
        ),
      );
      expect(outcomes.filter(Boolean).length === 1, `one applies, got ${outcomes.join()}`);
    }),
    withStore('redeliver and discard leave anything but a dead letter alone', async (store) => {
      const open = session();
      await insert(store, open);
      const done = session();
      await insert(store, done);
      await store.lease({ key: done.key, owner: 'w', now: T0, leaseMs: 1000 });
      await store.settle({ key: done.key, owner: 'w', update: completed(), now: T0 });
      for (const key of [open.key, done.key, 'absent']) {
        expect(!(await store.redeliverDeadLetter({ key, now: T0 })), `${key} not redelivered`);
        expect(!(await store.discardDeadLetter({ key, now: T0 })), `${key} not discarded`);
      }
      expect((await store.get({ key: open.key, now: T0 }))?.state === 'pending', 'open kept');
      expect((await store.get({ key: done.key, now: T0 }))?.state === 'completed', 'closed kept');
    }),
    // Erasure (rule 11): every record of one user goes, in whatever state, and nothing of
    // another user's; work in flight on a removed record cannot write it back.
    withStore(
      'forgetUser removes every record of the user, in every state, and counts them',
      async (store) => {
        const records = async (externalUserId: string) => {
          const pending = session({ externalUserId, createdAt: T0 });
          const delivering = session({ externalUserId, createdAt: T0 + 1 });
          const leased = session({ externalUserId, createdAt: T0 + 2 });
          const done = session({ externalUserId, createdAt: T0 + 3 });
          const failed = session({ externalUserId, createdAt: T0 + 4 });
          // A delivery matched to no session: no token, keyed by its digest.
          const { token: _token, ...unmatched } = session({
            key: unmatchedKey(Math.random().toString(36).slice(2)),
            externalUserId,
            state: 'delivering',
            result: result(),
          });
          for (const record of [pending, delivering, leased, done, failed, unmatched]) {
            expect(await insert(store, record), 'inserted');
          }
          await store.attachResult({ key: delivering.key, result: result(), now: T0 });
          await store.lease({ key: leased.key, owner: 'w', now: T0, leaseMs: 60_000 });
          await store.lease({ key: done.key, owner: 'w', now: T0, leaseMs: 1000 });
          await store.settle({ key: done.key, owner: 'w', update: completed(), now: T0 });
          await store.attachResult({ key: failed.key, result: result(), now: T0 });
          await store.lease({ key: failed.key, owner: 'w', now: T0, leaseMs: 1000 });
          const update = { state: 'failed' as const, retainMs: 60_000, attempts: 5 };
          await store.settle({ key: failed.key, owner: 'w', update, now: T0 });
          return [pending, delivering, leased, done, failed, unmatched];
        };
        const alice = `forget_alice_${Math.random()}`;
        const bob = `forget_bob_${Math.random()}`;
        const hers = await records(alice);
        const his = await records(bob);
        const now = T0 + 10;
        expect(
          (await store.listDeadLetters({ now, limit: 10 })).records.length === 2,
          'a dead letter of each',
        );
        const removed = await store.forgetUser({ externalUserId: alice, now });
        expect(removed === hers.length, `removed ${hers.length} records, got ${removed}`);
        for (const record of hers) {
          expect(
            (await store.get({ key: record.key, now })) === undefined,
            `${record.key} is gone`,
          );
        }
        expect(
          (await store.findByUser({ externalUserId: alice, now, limit: 50 })).length === 0,
          'findByUser finds none of hers',
        );
        const letters = (await store.listDeadLetters({ now, limit: 10 })).records;
        expect(
          letters.length === 1 && letters[0]!.externalUserId === bob,
          `only his dead letter is listed, got ${letters.length}`,
        );
        const kept = await store.findByUser({ externalUserId: bob, now, limit: 50 });
        expect(
          kept.length === his.length,
          `his ${his.length} records are kept, got ${kept.length}`,
        );
        const counts = await store.counts({ now });
        expect(
          counts.pending === 2 &&
            counts.delivering === 2 &&
            counts.completed === 1 &&
            counts.failed === 1 &&
            counts.expired === 0,
          `counts are his alone, got ${JSON.stringify(counts)}`,
        );
        const due = await store.leaseDue({
          owner: 'x',
          now: now + 120_000,
          leaseMs: 1000,
          limit: 50,
        });
        expect(
          due.length === 4 && due.every((record) => record.externalUserId === bob),
          `only his open records are due, got ${due.length}`,
        );
        expect(
          (await store.forgetUser({ externalUserId: alice, now })) === 0,
          'a second call removes none',
        );
        expect(
          (await store.forgetUser({ externalUserId: `nobody_${Math.random()}`, now })) === 0,
          'an unknown user has none',
        );
      },
    ),
    withStore(
      'a record leased by a sweep in flight is removed, and its settle writes nothing back',
      async (store) => {
        const externalUserId = `forget_inflight_${Math.random()}`;
        const record = session({ externalUserId, dueAt: T0 - 1 });
        await insert(store, record);
        const [leased] = await store.leaseDue({
          owner: 'sweep',
          now: T0,
          leaseMs: 60_000,
          limit: 10,
        });
        expect(leased?.key === record.key, 'the sweep holds it');
        expect((await store.forgetUser({ externalUserId, now: T0 + 1 })) === 1, 'removed');
        const update = { state: 'completed' as const, retainMs: 60_000, result: result() };
        expect(
          !(await store.settle({ key: record.key, owner: 'sweep', update, now: T0 + 2 })),
          'closing it fails',
        );
        expect(
          !(await store.settle({
            key: record.key,
            owner: 'sweep',
            update: { state: 'delivering', dueAt: T0 + 5, attempts: 1, result: result() },
            now: T0 + 2,
          })),
          'rescheduling it fails',
        );
        expect(
          (await store.attachResult({ key: record.key, result: result(), now: T0 + 2 })) ===
            'missing',
          'a result finds no record to attach to',
        );
        expect(
          !(await store.lease({ key: record.key, owner: 'sweep', now: T0 + 2, leaseMs: 1000 })),
          'nor can it be leased again',
        );
        expect((await store.get({ key: record.key, now: T0 + 2 })) === undefined, 'still gone');
        expect(
          (await store.findByUser({ externalUserId, now: T0 + 2, limit: 10 })).length === 0,
          'the user has no record',
        );
        const counts = await store.counts({ now: T0 + 2 });
        expect(
          Object.values(counts).every((n) => n === 0),
          `nothing counted, got ${JSON.stringify(counts)}`,
        );
      },
    ),
    withStore('forgetUser counts only records still readable at now', async (store) => {
      const externalUserId = `forget_retained_${Math.random()}`;
      const short = session({ externalUserId });
      const open = session({ externalUserId });
      await insert(store, short);
      await insert(store, open);
      await store.lease({ key: short.key, owner: 'w', now: T0, leaseMs: 1000 });
      await store.settle({ key: short.key, owner: 'w', update: completed(1000), now: T0 });
      const removed = await store.forgetUser({ externalUserId, now: T0 + 1000 });
      expect(removed === 1, `a record past its retention is not counted, got ${removed}`);
      expect(
        (await store.findByUser({ externalUserId, now: T0 + 1000, limit: 10 })).length === 0,
        'none left',
      );
    }),
    withStore('concurrent forgetUser calls remove each record once', async (store) => {
      const externalUserId = `forget_concurrent_${Math.random()}`;
      for (let i = 0; i < 8; i++)
        await insert(store, session({ externalUserId, createdAt: T0 + i }));
      const removed = await Promise.all(
        Array.from({ length: 5 }, () => store.forgetUser({ externalUserId, now: T0 })),
      );
      const total = removed.reduce((sum, n) => sum + n, 0);
      expect(total === 8, `8 removed in all, got ${removed.join()}`);
    }),
    withStore(
      'forgetUser never removes the records of an id that differs in a lone surrogate',
      async (store) => {
        const user = `forget_surrogate_${++sequence}_`;
        const replaced = session({ externalUserId: `${user}\ufffd` });
        await insert(store, replaced);
        for (const lone of ['\ud800', '\udc00']) {
          const removed = await store
            .forgetUser({ externalUserId: `${user}${lone}`, now: T0 })
            .then(
              (count) => count,
              (error: unknown) => {
                expect(
                  error instanceof TypeError && /surrogate/i.test(error.message),
                  `refused with a TypeError naming the lone surrogate, got ${String(error)}`,
                );
                return 0;
              },
            );
          expect(
            removed === 0,
            `forgetUser(${JSON.stringify(`${user}${lone}`)}) removed ${removed}`,
          );
        }
        expect(
          (await store.get({ key: replaced.key, now: T0 }))?.externalUserId === `${user}\ufffd`,
          'the record of the id with U+FFFD is kept',
        );
      },
    ),
    withStore('dueSummary counts open records due and not leased', async (store) => {
      expect(
        JSON.stringify(await store.dueSummary({ now: T0 })) === JSON.stringify({ due: 0 }),
        'an empty store has no backlog',
      );
      const a = session({ dueAt: T0 + 10 });
      const b = session({ dueAt: T0 + 20 });
      await insert(store, a);
      await insert(store, b);
      await insert(store, session({ dueAt: T0 + 100 }));
      await deadLetter(store);
      const summary = await store.dueSummary({ now: T0 + 50 });
      expect(
        summary.due === 2 && summary.oldestDueAt === T0 + 10,
        `two due, the oldest at +10, got ${JSON.stringify(summary)}`,
      );
      await store.lease({ key: a.key, owner: 'w', now: T0 + 50, leaseMs: 1000 });
      const leased = await store.dueSummary({ now: T0 + 50 });
      expect(
        leased.due === 1 && leased.oldestDueAt === T0 + 20,
        `a leased record is not backlog, got ${JSON.stringify(leased)}`,
      );
      const lapsed = await store.dueSummary({ now: T0 + 1050 });
      expect(lapsed.due === 3, `a lapsed lease is due again, got ${JSON.stringify(lapsed)}`);
    }),
    withStore('counts reports records by state', async (store) => {
      await insert(store, session());
      const done = session();
      await insert(store, done);
      await store.lease({ key: done.key, owner: 'a', now: T0, leaseMs: 5000 });
      await store.settle({ key: done.key, owner: 'a', update: completed(), now: T0 });
      const counts = await store.counts({ now: T0 });
      expect(
        counts.pending === 1 &&
          counts.completed === 1 &&
          counts.delivering === 0 &&
          counts.expired === 0 &&
          counts.failed === 0,
        JSON.stringify(counts),
      );
    }),
    // Rule 12: hints are what the caller believes; a store checks them against what it holds.
    withStore(
      'a user hint naming another user changes no outcome, nor any index',
      async (store) => {
        const alice = `hint_alice_${++sequence}`;
        const bob = `hint_bob_${sequence}`;
        const hers = session({ externalUserId: alice });
        const his = session({ externalUserId: bob });
        const alsoHis = session({ externalUserId: bob });
        for (const record of [hers, his, alsoHis]) await insert(store, record);
        // Hints of the other user (whose indexes exist), of nobody, and of no storable id.
        const wrong = [bob, `nobody_${sequence}`, '', '\ud800'];
        expect(
          (await store.attachResult({ key: hers.key, result: result(), now: T0, user: bob })) ===
            'attached',
          'attached under a wrong hint',
        );
        for (const user of wrong) {
          expect(
            (await store.attachResult({ key: hers.key, result: result(), now: T0, user })) ===
              'already-attached',
            `a second result refused under the hint ${JSON.stringify(user)}`,
          );
        }
        const leased = await store.lease({
          key: hers.key,
          owner: 'w',
          now: T0,
          leaseMs: 5000,
          user: bob,
        });
        expect(
          leased?.externalUserId === alice && leased.state === 'delivering' && leased.result,
          'leased as it is, whatever the hint',
        );
        for (const user of wrong) {
          expect(
            !(await store.lease({ key: hers.key, owner: 'x', now: T0, leaseMs: 5000, user })),
            `another owner refused under the hint ${JSON.stringify(user)}`,
          );
        }
        expect(
          await store.settle({
            key: hers.key,
            owner: 'w',
            update: completed(),
            now: T0,
            user: bob,
          }),
          'closed under a wrong hint',
        );
        expect(
          (await store.attachResult({ key: hers.key, result: result(), now: T0, user: bob })) ===
            'closed',
          'closed stays closed',
        );
        // An open record leased and rescheduled under a wrong hint stays in its own user's index.
        expect(
          await store.lease({ key: his.key, owner: 'w', now: T0, leaseMs: 5000, user: alice }),
          'his leased under her hint',
        );
        expect(
          await store.settle({
            key: his.key,
            owner: 'w',
            update: { state: 'pending', dueAt: T0 + 10, attempts: 1 },
            now: T0,
            user: alice,
          }),
          'his rescheduled under her hint',
        );
        const herRecords = await store.findByUser({
          externalUserId: alice,
          now: T0,
          limit: 10,
          keys: [his.key, alsoHis.key, 'absent'],
        });
        expect(
          herRecords.length === 1 &&
            herRecords[0]!.key === hers.key &&
            herRecords[0]!.state === 'completed',
          `hers alone, closed, whatever keys are expected, got ${herRecords.map((r) => r.key)}`,
        );
        const hisRecords = await store.findByUser({
          externalUserId: bob,
          now: T0,
          limit: 10,
          keys: [hers.key],
        });
        expect(
          hisRecords.length === 2 &&
            hisRecords.every((r) => r.externalUserId === bob && r.state === 'pending') &&
            hisRecords.some((r) => r.key === his.key && r.attempts === 1),
          `his two, open, though one key expected is hers, got ${hisRecords.map((r) => r.key)}`,
        );
        const due = await store.leaseDue({
          now: T0 + 10,
          limit: 10,
          owner: 'sweep',
          leaseMs: 1000,
        });
        expect(
          due.some((r) => r.key === his.key && r.externalUserId === bob),
          'his is due again at its time',
        );
        expect((await store.forgetUser({ externalUserId: bob, now: T0 + 10 })) === 2, 'his two go');
        expect(
          (await store.get({ key: hers.key, now: T0 + 10 }))?.state === 'completed',
          'hers is kept',
        );
        expect(
          (await store.forgetUser({ externalUserId: alice, now: T0 + 10 })) === 1,
          'hers goes',
        );
      },
    ),
    withStore(
      'attachAndLease, where a store has it, answers as attachResult followed by lease',
      async (store) => {
        // Optional: the Receiver makes the two calls on a store without it.
        if (typeof store.attachAndLease !== 'function') return;
        const attachAndLease = (key: string, owner: string, now: number, user?: string) =>
          store.attachAndLease!({
            key,
            result: result(),
            now,
            owner,
            leaseMs: 5000,
            ...(user === undefined ? {} : { user }),
          });
        const missing = await attachAndLease('absent', 'w', T0);
        expect(missing.attached === 'missing' && !missing.leased, 'a missing record');

        const pending = session({ attempts: 3, dueAt: T0 + 60_000 });
        await insert(store, pending);
        const first = await attachAndLease(pending.key, 'w', T0, pending.externalUserId);
        const leased = first.leased;
        expect(first.attached === 'attached', `attached, got ${first.attached}`);
        expect(
          leased?.key === pending.key &&
            leased.state === 'delivering' &&
            leased.result?.payload &&
            leased.attempts === 0 &&
            leased.lease?.owner === 'w' &&
            leased.lease.until === T0 + 5000 &&
            leased.dueAt === T0 + 5000,
          `leased to w until the lease end, delivering with its result, got ${JSON.stringify(leased)}`,
        );
        const second = await attachAndLease(pending.key, 'x', T0 + 1);
        expect(
          second.attached === 'already-attached' && !second.leased,
          'a second result is refused, and leases nothing',
        );
        expect(
          !(await store.lease({ key: pending.key, owner: 'x', now: T0 + 1, leaseMs: 1000 })),
          'the lease stays with w',
        );
        expect(
          (await store.leaseDue({ now: T0 + 4999, limit: 10, owner: 'x', leaseMs: 1000 }))
            .length === 0,
          'not due while leased',
        );
        expect(
          await store.settle({ key: pending.key, owner: 'w', update: completed(), now: T0 + 2 }),
          'w settles',
        );
        const closed = await attachAndLease(pending.key, 'x', T0 + 3);
        expect(closed.attached === 'closed' && !closed.leased, 'a closed record');

        // Another owner's live lease (a poll in flight): attached, and left with that owner.
        const polled = session();
        await insert(store, polled);
        await store.lease({ key: polled.key, owner: 'poller', now: T0, leaseMs: 5000 });
        const behind = await attachAndLease(polled.key, 'webhook', T0 + 1, 'someone_else');
        expect(behind.attached === 'attached' && !behind.leased, 'attached, not leased');
        expect(
          await store.settle({
            key: polled.key,
            owner: 'poller',
            update: { state: 'pending', dueAt: T0 + 60_000, attempts: 1 },
            now: T0 + 2,
          }),
          'the poller still holds it',
        );
        const afterPoll = await store.get({ key: polled.key, now: T0 + 2 });
        expect(
          afterPoll?.state === 'delivering' && afterPoll.dueAt === T0 + 2 && afterPoll.result,
          'the result attached meanwhile is due at once',
        );

        // A lease that passed is taken over; the caller's own lease is renewed.
        const lapsed = session();
        await insert(store, lapsed);
        await store.lease({ key: lapsed.key, owner: 'crashed', now: T0, leaseMs: 10 });
        const taken = await attachAndLease(lapsed.key, 'webhook', T0 + 10);
        expect(
          taken.attached === 'attached' && taken.leased?.lease?.owner === 'webhook',
          'a passed lease is taken over',
        );
        const own = session();
        await insert(store, own);
        await store.lease({ key: own.key, owner: 'w', now: T0, leaseMs: 100 });
        const renewed = await attachAndLease(own.key, 'w', T0 + 50);
        expect(
          renewed.attached === 'attached' && renewed.leased?.lease?.until === T0 + 5050,
          'its own lease is renewed from now',
        );

        // Of concurrent calls on one record, one attaches and holds the lease.
        const raced = session();
        await insert(store, raced);
        const outcomes = await Promise.all(
          Array.from({ length: 10 }, (_, i) => attachAndLease(raced.key, `o${i}`, T0)),
        );
        const winners = outcomes.filter((outcome) => outcome.attached === 'attached');
        expect(
          winners.length === 1 && winners[0]!.leased?.lease?.owner !== undefined,
          `one attaches and leases, got ${outcomes.map((o) => o.attached)}`,
        );
        expect(
          outcomes.every(
            (o) => o === winners[0] || (o.attached === 'already-attached' && !o.leased),
          ),
          'the others are refused and lease nothing',
        );
      },
    ),
    withStore(
      'hasNewerSession, where a store has it, tells a kept session of the users started later',
      async (store) => {
        // Optional: the Receiver lists the user's records on a store without it.
        if (typeof store.hasNewerSession !== 'function') return;
        const newer = (externalUserIds: string[], createdAfter: number, now = T0) =>
          store.hasNewerSession!({ externalUserIds, createdAfter, now });
        const older = `older_${Math.random()}`;
        const other = `other_${Math.random()}`;
        await insert(store, session({ externalUserId: older, createdAt: T0 - 10 }));
        const open = session({ externalUserId: older, createdAt: T0 + 5 });
        await insert(store, open);
        expect(await newer([older], T0), 'a newer open session counts');
        expect(!(await newer([older], T0 + 5)), 'one started at createdAfter is not newer');
        expect(!(await newer([older], T0 + 6)), 'older sessions only: none newer');
        expect(!(await newer([], T0 - 100)), 'no ids: none newer');

        // Several ids (one user under two keys' hashes): any of them counts, the second too.
        expect(await newer([other, older], T0), 'the second id holds the newer session');
        expect(!(await newer([other, `none_${Math.random()}`], T0)), 'neither id holds one');

        // Closed and retained counts, until its retention ends.
        await store.lease({ key: open.key, owner: 'o', now: T0, leaseMs: 1000 });
        await store.settle({ key: open.key, owner: 'o', update: completed(1000), now: T0 });
        expect(await newer([older], T0, T0 + 999), 'a newer session closed and retained counts');
        expect(!(await newer([older], T0, T0 + 1000)), 'past its retention it no longer counts');
      },
    ),
    withStore(
      'hasNewerSession counts neither a delivery matched to no session nor another user',
      async (store) => {
        if (typeof store.hasNewerSession !== 'function') return;
        const user = `user_${Math.random()}`;
        const someoneElse = `else_${Math.random()}`;
        await insert(store, session({ externalUserId: user, createdAt: T0 }));
        // A delivery matched to no session: no token, keyed by its digest, no session's start.
        const { token: _token, ...unmatched } = session({
          key: unmatchedKey(Math.random().toString(36).slice(2)),
          externalUserId: user,
          createdAt: T0 + 50,
          state: 'delivering',
          result: result(),
        });
        expect(await insert(store, unmatched), 'inserted');
        await insert(store, session({ externalUserId: someoneElse, createdAt: T0 + 50 }));
        const options = { externalUserIds: [user], createdAfter: T0, now: T0 };
        expect(!(await store.hasNewerSession(options)), 'neither counts');
        expect(
          await store.hasNewerSession({ ...options, externalUserIds: [user, someoneElse] }),
          'the other user counts when named',
        );
      },
    ),
    withStore(
      'readClock, where a store has it, reads a clock within seconds of this one',
      async (store) => {
        // Optional: stores kept in the process have no clock of their own to read.
        if (typeof store.readClock !== 'function') return;
        const before = Date.now();
        const first = await store.readClock();
        const second = await store.readClock();
        const after = Date.now();
        for (const read of [first, second]) {
          expect(
            Number.isFinite(read) &&
              read >= before - CLOCK_SLACK_MS &&
              read <= after + CLOCK_SLACK_MS,
            `readClock() gives ms since the epoch near Date.now() (${before}..${after}), got ${read}`,
          );
        }
        expect(
          second >= first - CLOCK_SLACK_MS,
          `a second read (${second}) is not far before the first (${first})`,
        );
      },
    ),
    ...startContractCases({ withStore, expect, t0: T0 }),
  ];
}

/** How far a local test server's clock may be from the test's (the contract's `readClock`). */
const CLOCK_SLACK_MS = 5_000;
