import type {
  ClaimStartOptions,
  ClaimStartOutcome,
  EndStartOptions,
  StartCounter,
  Store,
  TrackedSession,
} from '../store/store.js';

/** A start's check: a store, a check of conditions, a clock of its own, a fresh id. */
export interface StartContractTools {
  withStore: (
    name: string,
    body: (store: Store) => Promise<void>,
  ) => { name: string; run: () => Promise<void> };
  expect: (condition: unknown, message: string) => asserts condition;
  /** The cases' own clock: times are passed in, never read. */
  t0: number;
}

const CLAIM_MS = 30_000;
const LIFETIME_MS = 30 * 60_000;

let sequence = 0;
const unique = (what: string) => `${what}_${++sequence}_${Math.random().toString(36).slice(2, 10)}`;

/** The starts' part of the Store contract (rule 13), for stores that have `claimStart`. */
export function startContractCases(tools: StartContractTools) {
  const { withStore, t0 } = tools;
  const expect: StartContractTools['expect'] = tools.expect;
  const starts = (store: Store) => {
    const { claimStart, endStart } = store;
    if (!claimStart || !endStart) {
      throw new Error(
        'Store contract: claimStart and endStart are implemented (every store of this repository keeps starts)',
      );
    }
    return {
      claim: (options: ClaimStartOptions) => claimStart.call(store, options),
      end: (options: EndStartOptions) => endStart.call(store, options),
    };
  };
  const claimOf = (overrides: Partial<ClaimStartOptions> = {}): ClaimStartOptions => ({
    startKey: unique('s1:start'),
    externalUserId: unique('user'),
    owner: unique('owner'),
    now: t0,
    claimMs: CLAIM_MS,
    reuseMinLifetimeMs: 60_000,
    counters: [],
    ...overrides,
  });
  const sessionOf = (claim: ClaimStartOptions, overrides: Partial<TrackedSession> = {}) => {
    const key = unique('t1:key');
    return {
      key,
      token: unique('fvt2.sealed'),
      externalUserId: claim.externalUserId,
      createdAt: claim.now,
      expiresAt: claim.now + LIFETIME_MS,
      state: 'pending' as const,
      dueAt: claim.now + 60_000,
      attempts: 0,
      ...overrides,
    };
  };
  const insertStarted = async (store: Store, claim: ClaimStartOptions, record: TrackedSession) => {
    const { inserted } = await store.insert({
      record,
      now: claim.now,
      start: { startKey: claim.startKey, owner: claim.owner },
    });
    expect(inserted, 'the started session is inserted');
  };
  const outcomes = (list: ClaimStartOutcome[], claim: ClaimStartOutcome['claim']) =>
    list.filter((outcome) => outcome.claim === claim).length;

  return [
    withStore('claimStart: of 25 concurrent claims of one start, one is granted', async (store) => {
      const { claim } = starts(store);
      const first = claimOf();
      const all = await Promise.all(
        Array.from({ length: 25 }, () => claim({ ...first, owner: unique('owner') })),
      );
      expect(outcomes(all, 'granted') === 1, `one granted, got ${outcomes(all, 'granted')}`);
      expect(outcomes(all, 'busy') === 24, `the others busy, got ${outcomes(all, 'busy')}`);
      for (const outcome of all) {
        if (outcome.claim === 'busy') {
          expect(outcome.until === t0 + CLAIM_MS, `busy until the claim lapses (${outcome.until})`);
        }
      }
    }),
    withStore(
      'claimStart: the session inserted with the start is handed back while pending with the life asked',
      async (store) => {
        const { claim } = starts(store);
        const first = claimOf();
        expect((await claim(first)).claim === 'granted', 'the first claim is granted');
        const record = sessionOf(first);
        await insertStarted(store, first, record);
        const later = { ...first, owner: unique('owner'), now: t0 + 1000 };
        const again = await claim(later);
        expect(again.claim === 'reuse', `a claim after the insert reuses, got ${again.claim}`);
        expect(
          again.claim === 'reuse' &&
            again.record.key === record.key &&
            again.record.token === record.token &&
            again.record.state === 'pending',
          'the record handed back is the one inserted, token and all',
        );
        const short = await claim({ ...later, reuseMinLifetimeMs: LIFETIME_MS });
        expect(
          short.claim === 'granted',
          `a session with less life left than asked is not reused, got ${short.claim}`,
        );
      },
    ),
    withStore(
      'claimStart: without reuseMinLifetimeMs (a fresh session) the open one is not handed back',
      async (store) => {
        const { claim } = starts(store);
        const first = claimOf();
        await claim(first);
        await insertStarted(store, first, sessionOf(first));
        const { reuseMinLifetimeMs: _reuse, ...fresh } = { ...first, owner: unique('owner') };
        const outcome = await claim(fresh);
        expect(outcome.claim === 'granted', `a fresh claim is granted, got ${outcome.claim}`);
      },
    ),
    withStore(
      'claimStart: a session with a result, or closed, is not handed back',
      async (store) => {
        const { claim } = starts(store);
        const first = claimOf();
        await claim(first);
        const record = sessionOf(first);
        await insertStarted(store, first, record);
        const leased = await store.lease({
          key: record.key,
          owner: 'poller',
          now: t0,
          leaseMs: 1000,
        });
        expect(leased, 'the session is leased');
        await store.settle({
          key: record.key,
          owner: 'poller',
          update: { state: 'completed', retainMs: 60_000 },
          now: t0,
        });
        const outcome = await claim({ ...first, owner: unique('owner'), now: t0 + 1 });
        expect(outcome.claim === 'granted', `a closed session is not reused, got ${outcome.claim}`);
      },
    ),
    withStore(
      'endStart: ends the owner claim only, and the start is claimed again',
      async (store) => {
        const { claim, end } = starts(store);
        const first = claimOf();
        await claim(first);
        await end({ startKey: first.startKey, owner: 'someone-else', now: t0 });
        const other = { ...first, owner: unique('owner') };
        expect((await claim(other)).claim === 'busy', 'endStart by another owner leaves the claim');
        await end({ startKey: first.startKey, owner: first.owner, now: t0 });
        expect(
          (await claim(other)).claim === 'granted',
          'once its owner ends it, the start is granted again',
        );
      },
    ),
    withStore('claimStart: a claim lapses after claimMs', async (store) => {
      const { claim } = starts(store);
      const first = claimOf();
      await claim(first);
      const other = { ...first, owner: unique('owner') };
      expect(
        (await claim({ ...other, now: t0 + CLAIM_MS - 1 })).claim === 'busy',
        'held until claimMs',
      );
      expect(
        (await claim({ ...other, now: t0 + CLAIM_MS })).claim === 'granted',
        'granted to another once it lapsed',
      );
    }),
    withStore(
      'claimStart: counters count granted claims only, and none passes its limit under concurrency',
      async (store) => {
        const { claim } = starts(store);
        const limited: StartCounter = { key: unique('n1:u'), limit: 5, ttlMs: 86_400_000 };
        const unlimited: StartCounter = { key: unique('n1:a'), ttlMs: 86_400_000 };
        const past: StartCounter = { key: unique('n1:a'), readOnly: true, ttlMs: 86_400_000 };
        const counters = [limited, unlimited, past];
        const all = await Promise.all(
          Array.from({ length: 20 }, () => claim(claimOf({ counters }))),
        );
        expect(outcomes(all, 'granted') === 5, `5 granted, got ${outcomes(all, 'granted')}`);
        expect(outcomes(all, 'limited') === 15, `15 limited, got ${outcomes(all, 'limited')}`);
        const seen = all
          .flatMap((outcome) => (outcome.claim === 'granted' ? [outcome.counts[0]] : []))
          .sort();
        expect(
          seen.join() === '1,2,3,4,5',
          `each granted claim sees its own count, got ${seen.join()}`,
        );
        for (const outcome of all) {
          if (outcome.claim !== 'limited') continue;
          expect(outcome.counter === 0, `the limited counter is named (${outcome.counter})`);
          expect(
            outcome.counts[0] === 5 && outcome.counts[1] === 5 && outcome.counts[2] === 0,
            `a limited claim reads the counts and counts nothing (${outcome.counts.join()})`,
          );
        }
        const busyFirst = claimOf({ counters: [unlimited] });
        await claim(busyFirst);
        const busy = await claim({ ...busyFirst, owner: unique('owner') });
        expect(busy.claim === 'busy', 'another owner is busy');
        const read = await claim(claimOf({ counters: [{ ...unlimited, limit: 7 }] }));
        expect(
          read.claim === 'granted' && read.counts[0] === 7,
          `a busy claim counted nothing: the next count is 7, got ${JSON.stringify(read)}`,
        );
      },
    ),
    withStore('claimStart: a count is kept for its ttlMs, then starts again', async (store) => {
      const { claim } = starts(store);
      const counter: StartCounter = { key: unique('n1:u'), limit: 1, ttlMs: 60_000 };
      expect(
        (await claim(claimOf({ counters: [counter] }))).claim === 'granted',
        'the first is granted',
      );
      expect(
        (await claim(claimOf({ counters: [counter], now: t0 + 59_999 }))).claim === 'limited',
        'limited while the count is kept',
      );
      const after = await claim(claimOf({ counters: [counter], now: t0 + 60_000 }));
      expect(
        after.claim === 'granted' && after.counts[0] === 1,
        `counted anew once its ttl passed, got ${JSON.stringify(after)}`,
      );
    }),
    withStore('forgetUser removes the user starts with the records', async (store) => {
      const { claim } = starts(store);
      const first = claimOf();
      await claim(first);
      await insertStarted(store, first, sessionOf(first));
      const held = claimOf({ externalUserId: first.externalUserId });
      await claim(held);
      await store.forgetUser({ externalUserId: first.externalUserId, now: t0 });
      const after = await claim({ ...first, owner: unique('owner'), now: t0 + 1 });
      expect(
        after.claim === 'granted',
        `no session to hand back after erasure, got ${after.claim}`,
      );
      const heldAfter = await claim({ ...held, owner: unique('owner'), now: t0 + 1 });
      expect(heldAfter.claim === 'granted', `no claim left after erasure, got ${heldAfter.claim}`);
    }),
  ];
}
