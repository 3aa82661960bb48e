import { MemoryStore } from '../store/memory-store.js';
import type {
  SettleUpdate,
  StartCounter,
  Store,
  StoredResult,
  TrackedSession,
} from '../store/store.js';
import { fixturePayload } from './fixture-payload.js';

// Any Store must answer exactly as the reference MemoryStore does. Random sequences of
// operations run on both with one virtual clock; every answer is compared. Few keys, users
// and owners, so that operations meet on the same records; retentions and replay windows
// short enough that records and digests expire during a run.
const KEYS = ['k1', 'k2', 'k3', 'k4'];
const USERS = ['alice', 'bob', 'carol'];
const OWNERS = ['w1', 'w2'];
const DIGESTS = ['d1', 'd2'];
const LEASE_MS = [1000, 5000, 20_000];
const RETAIN_MS = [0, 5_000, 3_600_000];
const OPEN_STATES = ['pending', 'delivering'] as const;
const CLOSED_STATES = ['completed', 'expired', 'failed'] as const;
const T0 = Date.UTC(2030, 0, 1);
// Starts, each of one user (a start's key is a hash of its user and need), and the counters a
// claim may count: one with a limit, one without, one read only; periods that end in a run.
const STARTS: readonly (readonly [string, string])[] = [
  ['s1:a', 'alice'],
  ['s1:b', 'alice'],
  ['s1:c', 'bob'],
];
const COUNTERS: readonly StartCounter[] = [
  { key: 'n1:u', limit: 3, ttlMs: 30_000 },
  { key: 'n1:a', ttlMs: 60_000 },
  { key: 'n1:p', readOnly: true, ttlMs: 60_000 },
];
const CLAIM_MS = [1000, 20_000];
// Inserted records expire 600 s after their insert: some reused, some too short-lived.
const REUSE_MIN_LIFETIME_MS = [null, 0, 60_000, 700_000];

/** One step of a model run: a Store call, or the virtual clock moving on. */
export type StoreModelStep =
  | {
      op: 'insert';
      key: string;
      user: string;
      dueIn: number;
      withResult: boolean;
      maxOpenPerUser: number | null;
      displacedRetainMs: number;
      /**
       * The claimed start the record ends (`start` of `insert`), with the claim's owner.
       */
      start: { startKey: string; owner: string } | null;
    }
  | {
      op: 'claimStart';
      startKey: string;
      user: string;
      owner: string;
      claimMs: number;
      reuseMinLifetimeMs: number | null;
      counters: number[];
    }
  | { op: 'endStart'; startKey: string; owner: string }
  | { op: 'get'; key: string }
  | { op: 'findByUser'; user: string; keys: string[] | null }
  | {
      op: 'hasNewerSession';
      users: string[];
      /**
       * `createdAfter` is this long before the step's own time (`now` plus its index).
       */
      before: number;
    }
  | { op: 'remember'; digest: string }
  | { op: 'forget'; digest: string }
  | { op: 'attachResult'; key: string; hint: string | null }
  | {
      op: 'attachAndLease';
      key: string;
      owner: string;
      leaseMs: number;
      hint: string | null;
    }
  | { op: 'lease'; key: string; owner: string; leaseMs: number; hint: string | null }
  | { op: 'leaseDue'; owner: string; leaseMs: number }
  | { op: 'settle'; key: string; owner: string; update: SettleSpec; hint: string | null }
  | { op: 'counts' }
  | { op: 'listDeadLetters' }
  | { op: 'redeliverDeadLetter'; key: string }
  | { op: 'discardDeadLetter'; key: string }
  | { op: 'dueSummary' }
  | { op: 'forgetUser'; user: string }
  | { op: 'advance'; ms: number };

/** What a generated `settle` step writes, relative to the model's clock. */
export type SettleSpec =
  | { state: 'pending' | 'delivering'; dueIn: number; attempts: number; withResult: boolean }
  | {
      state: 'completed' | 'expired' | 'failed';
      retainMs: number;
      attempts: number | null;
      withResult: boolean;
    };

/** A small seeded generator (mulberry32): a failing run is replayed from its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  return { int, pick, bool: () => next() < 0.5 };
}

// Weighted towards the operations that change state, so that leases, results attached
// during a lease and settles by the lease owner come up often.
const WEIGHTS: [StoreModelStep['op'], number][] = [
  ['insert', 4],
  ['get', 1],
  ['findByUser', 1],
  ['hasNewerSession', 1],
  ['remember', 1],
  ['forget', 1],
  ['attachResult', 3],
  ['attachAndLease', 2],
  ['lease', 4],
  ['leaseDue', 3],
  ['settle', 6],
  ['counts', 1],
  ['listDeadLetters', 1],
  ['redeliverDeadLetter', 2],
  ['discardDeadLetter', 1],
  ['dueSummary', 1],
  ['forgetUser', 1],
  ['claimStart', 4],
  ['endStart', 1],
  ['advance', 2],
];
const TOTAL_WEIGHT = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);

/** A random sequence of `length` steps, the same for the same seed. */
export function storeModelSteps(seed: number, length: number): StoreModelStep[] {
  const r = random(seed);
  const dueIn = () => r.int(-10_000, 30_000);
  // A user hint (`RecordUserHint`): none, or any user, right or wrong; it changes no answer.
  const hint = () => (r.bool() ? null : r.pick(USERS));
  const step = (): StoreModelStep => {
    let roll = r.int(1, TOTAL_WEIGHT);
    let op = WEIGHTS[0]![0];
    for (const [candidate, weight] of WEIGHTS) {
      op = candidate;
      roll -= weight;
      if (roll <= 0) break;
    }
    switch (op) {
      case 'insert': {
        const step = {
          op,
          key: r.pick(KEYS),
          user: r.pick(USERS),
          dueIn: dueIn(),
          withResult: r.bool(),
          maxOpenPerUser: r.bool() ? r.int(1, 3) : null,
          displacedRetainMs: r.pick(RETAIN_MS),
          start: null,
        };
        if (r.bool()) return step;
        // The session of a claimed start: the start's user's.
        const [startKey, user] = r.pick(STARTS);
        return { ...step, user, start: { startKey, owner: r.pick(OWNERS) } };
      }
      case 'claimStart': {
        const [startKey, user] = r.pick(STARTS);
        return {
          op,
          startKey,
          user,
          owner: r.pick(OWNERS),
          claimMs: r.pick(CLAIM_MS),
          reuseMinLifetimeMs: r.pick(REUSE_MIN_LIFETIME_MS),
          counters: COUNTERS.flatMap((_counter, index) => (r.bool() ? [index] : [])),
        };
      }
      case 'endStart':
        return { op, startKey: r.pick(STARTS)[0], owner: r.pick(OWNERS) };
      case 'get':
      case 'redeliverDeadLetter':
      case 'discardDeadLetter':
        return { op, key: r.pick(KEYS) };
      case 'attachResult':
        return { op, key: r.pick(KEYS), hint: hint() };
      case 'attachAndLease':
        return {
          op,
          key: r.pick(KEYS),
          owner: r.pick(OWNERS),
          leaseMs: r.pick(LEASE_MS),
          hint: hint(),
        };
      case 'findByUser':
        // Keys expected of the user (a hint): none, or some of all keys, the user's or not.
        return {
          op,
          user: r.pick(USERS),
          keys: r.bool() ? null : KEYS.filter(() => r.bool()),
        };
      case 'hasNewerSession':
        // Any of the users (none, one or several), and a time the records' starts surround.
        return { op, users: USERS.filter(() => r.bool()), before: r.int(0, 40_000) };
      case 'forgetUser':
        return { op, user: r.pick(USERS) };
      case 'remember':
      case 'forget':
        return { op, digest: r.pick(DIGESTS) };
      case 'lease':
        return {
          op,
          key: r.pick(KEYS),
          owner: r.pick(OWNERS),
          leaseMs: r.pick(LEASE_MS),
          hint: hint(),
        };
      case 'leaseDue':
        return { op, owner: r.pick(OWNERS), leaseMs: r.pick(LEASE_MS) };
      case 'settle':
        return {
          op,
          key: r.pick(KEYS),
          owner: r.pick(OWNERS),
          update: r.bool()
            ? {
                state: r.pick(OPEN_STATES),
                dueIn: dueIn(),
                attempts: r.int(0, 5),
                withResult: r.bool(),
              }
            : {
                state: r.pick(CLOSED_STATES),
                retainMs: r.pick(RETAIN_MS),
                attempts: r.bool() ? r.int(0, 5) : null,
                withResult: r.bool(),
              },
          hint: hint(),
        };
      case 'counts':
      case 'listDeadLetters':
      case 'dueSummary':
        return { op };
      case 'advance':
        return { op, ms: r.int(0, 15_000) };
    }
  };
  return Array.from({ length }, step);
}

const byKey = (records: TrackedSession[]) =>
  [...records].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

function settleUpdate(spec: SettleSpec, now: number, result: StoredResult): SettleUpdate {
  const withResult = spec.withResult ? { result } : {};
  if (!('dueIn' in spec)) {
    const attempts = spec.attempts === null ? {} : { attempts: spec.attempts };
    return { state: spec.state, retainMs: spec.retainMs, ...attempts, ...withResult };
  }
  return { state: spec.state, dueAt: now + spec.dueIn, attempts: spec.attempts, ...withResult };
}

const userHint = (user: string | null) => (user === null ? {} : { user });

/** Applies one step to a store and returns what it answered, in a comparable form. */
async function apply(store: Store, step: StoreModelStep, now: number, index: number) {
  const result: StoredResult = { payload: fixturePayload(), source: 'webhook', receivedAt: now };
  switch (step.op) {
    case 'insert': {
      const bound =
        step.maxOpenPerUser === null
          ? {}
          : { maxOpenPerUser: step.maxOpenPerUser, displacedRetainMs: step.displacedRetainMs };
      return store.insert({
        record: {
          key: step.key,
          token: step.key,
          externalUserId: step.user,
          // Distinct and increasing, so "the oldest open record" is one record in both.
          createdAt: now + index,
          expiresAt: now + 600_000,
          state: step.withResult ? 'delivering' : 'pending',
          dueAt: now + step.dueIn,
          attempts: 0,
          ...(step.withResult ? { result } : {}),
        },
        now,
        ...bound,
        ...(step.start ? { start: step.start } : {}),
      });
    }
    case 'claimStart':
      return store.claimStart!({
        startKey: step.startKey,
        externalUserId: step.user,
        owner: step.owner,
        now,
        claimMs: step.claimMs,
        ...(step.reuseMinLifetimeMs === null
          ? {}
          : { reuseMinLifetimeMs: step.reuseMinLifetimeMs }),
        counters: step.counters.map((index) => COUNTERS[index]!),
      });
    case 'endStart':
      return store.endStart!({ startKey: step.startKey, owner: step.owner, now });
    case 'get':
      return store.get({ key: step.key, now });
    case 'findByUser':
      return byKey(
        await store.findByUser({
          externalUserId: step.user,
          now,
          limit: 100,
          ...(step.keys === null ? {} : { keys: step.keys }),
        }),
      );
    case 'hasNewerSession':
      return store.hasNewerSession!({
        externalUserIds: step.users,
        createdAfter: now + index - step.before,
        now,
      });
    case 'remember':
      return store.remember({ digest: step.digest, ttlMs: 20_000, now });
    case 'forget':
      return store.forget({ digest: step.digest });
    case 'attachResult':
      return store.attachResult({ key: step.key, result, now, ...userHint(step.hint) });
    case 'attachAndLease': {
      const options = {
        key: step.key,
        result,
        now,
        owner: step.owner,
        leaseMs: step.leaseMs,
        ...userHint(step.hint),
      };
      if (store.attachAndLease) return store.attachAndLease(options);
      // A store without it: the two calls the Receiver makes in its place.
      const attached = await store.attachResult(options);
      if (attached !== 'attached') return { attached };
      const leased = await store.lease(options);
      return leased ? { attached, leased } : { attached };
    }
    case 'lease':
      return store.lease({
        key: step.key,
        owner: step.owner,
        now,
        leaseMs: step.leaseMs,
        ...userHint(step.hint),
      });
    case 'leaseDue': {
      const granted = await store.leaseDue({
        now,
        limit: 100,
        owner: step.owner,
        leaseMs: step.leaseMs,
      });
      return {
        records: byKey(granted),
        dueTimes: granted.map((r) => r.dueAt).sort((a, b) => a - b),
      };
    }
    case 'settle':
      return store.settle({
        key: step.key,
        owner: step.owner,
        update: settleUpdate(step.update, now, result),
        now,
        ...userHint(step.hint),
      });
    case 'counts':
      return store.counts({ now });
    case 'listDeadLetters':
      // In listing order (retention end, then key), which every store must keep.
      return (await store.listDeadLetters({ now, limit: 100 })).records;
    case 'redeliverDeadLetter':
      return store.redeliverDeadLetter({ key: step.key, now });
    case 'discardDeadLetter':
      return store.discardDeadLetter({ key: step.key, now });
    case 'dueSummary':
      return store.dueSummary({ now });
    case 'forgetUser':
      return store.forgetUser({ externalUserId: step.user, now });
    case 'advance':
      return undefined;
  }
}

/**
 * The steps a store can take: a store without `claimStart` and `endStart` (optional in the
 * Store interface) is run without starts, and its reference too; one without `hasNewerSession`
 * (optional too) without that call.
 */
function stepsOf(steps: StoreModelStep[], store: Store): StoreModelStep[] {
  const starts = Boolean(store.claimStart && store.endStart);
  const newer = Boolean(store.hasNewerSession);
  if (starts && newer) return steps;
  return steps.flatMap((step): StoreModelStep[] => {
    if (!newer && step.op === 'hasNewerSession') return [];
    if (starts) return [step];
    if (step.op === 'claimStart' || step.op === 'endStart') return [];
    return step.op === 'insert' ? [{ ...step, start: null }] : [step];
  });
}

/** JSON with object keys sorted and undefined properties dropped: two stores may build
 * equal records with their fields in another order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)))
      : item,
  );
}

/** Options of `checkStoreAgainstModel`. */
export interface StoreModelOptions {
  /** A new, empty store for each run. */
  createStore: () => Store | Promise<Store>;
  /** How many random sequences to run. Default 100. */
  runs?: number;
  /** The first run's seed; run `i` uses `seed + i`. Default: random (printed on failure). */
  seed?: number;
  /** Steps per sequence. Default 60. */
  steps?: number;
}

/**
 * Runs random sequences of Store operations on `createStore()` and on the reference
 * `MemoryStore` with one virtual clock, and throws at the first answer that differs, naming
 * the seed (pass it as `seed` with `runs: 1` to replay), the step and both answers. Every
 * Store implementation must pass it, as it passes `storeContractCases`.
 *
 * @example
 * it('answers as MemoryStore does', () =>
 *   checkStoreAgainstModel({ createStore: () => new MyStore() }), 60_000);
 */
export async function checkStoreAgainstModel(options: StoreModelOptions): Promise<void> {
  const runs = options.runs ?? 100;
  const first = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  for (let run = 0; run < runs; run++) {
    const seed = first + run;
    const reference = new MemoryStore();
    const store = await options.createStore();
    let now = T0;
    const steps = stepsOf(storeModelSteps(seed, options.steps ?? 60), store);
    const check = async (index: number, label: string, actual: unknown, expected: unknown) => {
      if (canonical(actual) === canonical(expected)) return;
      throw new Error(
        `Store model: seed ${seed}, step ${index} (${label}): the store answered ` +
          `${canonical(actual)}, MemoryStore ${canonical(expected)}. Steps so far: ` +
          canonical(steps.slice(0, index + 1)),
      );
    };
    for (const [index, step] of steps.entries()) {
      if (step.op === 'advance') now += step.ms;
      const expected = await apply(reference, step, now, index);
      const actual = await apply(store, step, now, index);
      await check(index, step.op, actual, expected);
    }
    for (const key of KEYS) {
      await check(
        steps.length,
        `final get ${key}`,
        await store.get({ key, now }),
        await reference.get({ key, now }),
      );
    }
    await check(
      steps.length,
      'final counts',
      await store.counts({ now }),
      await reference.counts({ now }),
    );
  }
}
