import { MemoryStore } from '@faceverify/core';
import type { SettleUpdate, Store, StoredResult, TrackedSession } from '@faceverify/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { storedResult } from './support/records.js';

// RedisStore must behave exactly like the reference MemoryStore. Random sequences of
// operations run on both with one virtual clock; every answer is compared. Retentions and
// replay windows are short enough that records and digests expire during a run.
const KEYS = ['k1', 'k2', 'k3', 'k4'];
const USERS = ['alice', 'bob', 'carol'];
const OWNERS = ['w1', 'w2'];
const DIGESTS = ['d1', 'd2'];

type Operation =
  | {
      op: 'insert';
      key: string;
      user: string;
      dueIn: number;
      withResult: boolean;
      maxOpenPerUser: number | null;
      displacedRetainMs: number;
    }
  | { op: 'get'; key: string }
  | { op: 'findByUser'; user: string }
  | { op: 'remember'; digest: string }
  | { op: 'forget'; digest: string }
  | { op: 'attachResult'; key: string }
  | { op: 'lease'; key: string; owner: string; leaseMs: number }
  | { op: 'leaseDue'; owner: string; leaseMs: number }
  | { op: 'settle'; key: string; owner: string; update: SettleUpdateSpec }
  | { op: 'counts' }
  | { op: 'advance'; ms: number };

type SettleUpdateSpec =
  | { state: 'pending' | 'delivering'; dueIn: number; attempts: number; withResult: boolean }
  | {
      state: 'completed' | 'expired' | 'failed';
      retainMs: number;
      attempts: number | null;
      withResult: boolean;
    };

const key = fc.constantFrom(...KEYS);
const owner = fc.constantFrom(...OWNERS);
const leaseMs = fc.constantFrom(1000, 5000, 20_000);
const dueIn = fc.integer({ min: -10_000, max: 30_000 });
const retainMs = fc.constantFrom(0, 5_000, 3_600_000);

// Weighted towards the operations that change state, so that leases, results attached
// during a lease and settles by the lease owner come up often.
const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('insert' as const),
      key,
      user: fc.constantFrom(...USERS),
      dueIn,
      withResult: fc.boolean(),
      maxOpenPerUser: fc.option(fc.integer({ min: 1, max: 3 })),
      displacedRetainMs: retainMs,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('get' as const), key }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('findByUser' as const),
      user: fc.constantFrom(...USERS),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('remember' as const),
      digest: fc.constantFrom(...DIGESTS),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('forget' as const),
      digest: fc.constantFrom(...DIGESTS),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('attachResult' as const), key }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('lease' as const), key, owner, leaseMs }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('leaseDue' as const), owner, leaseMs }) },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('settle' as const),
      key,
      owner,
      update: fc.oneof(
        fc.record({
          state: fc.constantFrom('pending' as const, 'delivering' as const),
          dueIn,
          attempts: fc.nat({ max: 5 }),
          withResult: fc.boolean(),
        }),
        fc.record({
          state: fc.constantFrom('completed' as const, 'expired' as const, 'failed' as const),
          retainMs,
          attempts: fc.option(fc.nat({ max: 5 })),
          withResult: fc.boolean(),
        }),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('counts' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('advance' as const),
      ms: fc.integer({ min: 0, max: 15_000 }),
    }),
  },
);

const byKey = (records: TrackedSession[]) =>
  [...records].sort((a, b) => a.key.localeCompare(b.key));

function settleUpdate(spec: SettleUpdateSpec, now: number, result: StoredResult): SettleUpdate {
  const withResult = spec.withResult ? { result } : {};
  if (!('dueIn' in spec)) {
    const attempts = spec.attempts === null ? {} : { attempts: spec.attempts };
    return { state: spec.state, retainMs: spec.retainMs, ...attempts, ...withResult };
  }
  return { state: spec.state, dueAt: now + spec.dueIn, attempts: spec.attempts, ...withResult };
}

/** Applies one operation to a store and returns what it answered, in a comparable form. */
async function apply(
  store: Store,
  operation: Operation,
  now: number,
  step: number,
): Promise<unknown> {
  const result = storedResult({ receivedAt: now });
  switch (operation.op) {
    case 'insert': {
      const bound =
        operation.maxOpenPerUser === null
          ? {}
          : {
              maxOpenPerUser: operation.maxOpenPerUser,
              displacedRetainMs: operation.displacedRetainMs,
            };
      const outcome = await store.insert({
        record: {
          key: operation.key,
          token: operation.key,
          externalUserId: operation.user,
          // Distinct and increasing, so "the oldest open record" is one record in both.
          createdAt: now + step,
          expiresAt: now + 600_000,
          state: operation.withResult ? 'delivering' : 'pending',
          dueAt: now + operation.dueIn,
          attempts: 0,
          ...(operation.withResult ? { result } : {}),
        },
        now,
        ...bound,
      });
      return outcome;
    }
    case 'get':
      return store.get({ key: operation.key, now });
    case 'findByUser':
      return byKey(await store.findByUser({ externalUserId: operation.user, now, limit: 100 }));
    case 'remember':
      return store.remember({ digest: operation.digest, ttlMs: 20_000, now });
    case 'forget':
      return store.forget({ digest: operation.digest });
    case 'attachResult':
      return store.attachResult({ key: operation.key, result, now });
    case 'lease':
      return store.lease({
        key: operation.key,
        owner: operation.owner,
        now,
        leaseMs: operation.leaseMs,
      });
    case 'leaseDue': {
      const granted = await store.leaseDue({
        now,
        limit: 100,
        owner: operation.owner,
        leaseMs: operation.leaseMs,
      });
      const dueTimes = granted.map((r) => r.dueAt);
      return { records: byKey(granted), dueTimes: [...dueTimes].sort((a, b) => a - b) };
    }
    case 'settle':
      return store.settle({
        key: operation.key,
        owner: operation.owner,
        update: settleUpdate(operation.update, now, result),
        now,
      });
    case 'counts':
      return store.counts({ now });
    case 'advance':
      return undefined;
  }
}

describe('RedisStore against the reference MemoryStore', () => {
  const redis = connect();

  it('answers every random sequence of operations the same way', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(operation, { minLength: 20, maxLength: 80 }),
        async (operations) => {
          const reference = new MemoryStore();
          const store = new RedisStore({ redis, prefix: uniquePrefix('model') });
          let now = Date.UTC(2030, 0, 1);
          for (const [index, step] of operations.entries()) {
            if (step.op === 'advance') now += step.ms;
            const expected = await apply(reference, step, now, index);
            const actual = await apply(store, step, now, index);
            expect({ index, step, answer: actual }).toEqual({ index, step, answer: expected });
          }
          for (const key of KEYS) {
            expect(await store.get({ key, now })).toEqual(await reference.get({ key, now }));
          }
          expect(await store.counts({ now })).toEqual(await reference.counts({ now }));
        },
      ),
      { numRuns: 150 },
    );
  });
});
