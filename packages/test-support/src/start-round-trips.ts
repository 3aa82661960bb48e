import type { ReceiverPaths, RoundTripMeter } from './round-trips.js';

/** A count of starts, as `Store.claimStart` takes it. */
interface CounterLike {
  key: string;
  limit?: number;
  readOnly?: boolean;
  ttlMs: number;
}

/** The claim options of `Store.claimStart` the paths below use. */
interface ClaimLike {
  startKey: string;
  externalUserId: string;
  owner: string;
  now: number;
  claimMs: number;
  reuseMinLifetimeMs?: number;
  counters: readonly CounterLike[];
}

/** A record as `Store.insert` takes it. */
interface RecordLike {
  key: string;
  token?: string;
  externalUserId: string;
  createdAt: number;
  expiresAt: number;
  state: 'pending';
  dueAt: number;
  attempts: number;
}

/** The few calls of a Store the paths below drive (`claimStart`, `endStart`, `insert`). */
export interface StartStoreLike {
  claimStart?(
    options: ClaimLike,
  ): Promise<{ claim: string; counts?: number[]; record?: { key: string } }>;
  endStart?(options: { startKey: string; owner: string; now: number }): Promise<void>;
  insert(options: {
    record: RecordLike;
    now: number;
    start?: { startKey: string; owner: string };
  }): Promise<{ inserted: boolean }>;
}

/** A session just started for `user`: pending, due in a minute, expiring in 30. */
export function startedSession(key: string, user: string, now: number): RecordLike {
  return {
    key,
    token: `fvt2.${key}`,
    externalUserId: user,
    createdAt: now,
    expiresAt: now + 1_800_000,
    state: 'pending',
    dueAt: now + 60_000,
    attempts: 0,
  };
}

/** `tallyPaths` of `measureStartPaths` where every call is one request in one round trip. */
export const ONE_ROUND_TRIP_PER_START_CALL: Readonly<Record<string, string>> = {
  claimGranted: '1/1',
  insertStarted: '1/1',
  claimReused: '1/1',
  claimReusedElsewhere: '1/1',
  claimReusedElsewhereAgain: '1/1',
  claimBusy: '1/1',
  endStart: '1/1',
  claimLimited: '1/1',
};

/** How a store's round-trip test measures its starts. */
export interface StartPathsSetup {
  meter: RoundTripMeter;
  /** The metered store. */
  store: StartStoreLike;
  /** Another instance of the same store (its own process's caches), metered on `meter` too. */
  elsewhere: StartStoreLike;
  /** A label unique to this run, so several runs can share one store. */
  label: string;
  now: number;
}

/**
 * The store round trips of each outcome of `claimStart` and of `endStart` (Store contract rule
 * 13), counted on a warm store (every statement and script used once before): a claim granted
 * with three counters (the user's day, the account's day, the account's last hour read only),
 * the insert that ends it, a claim that reuses the session on the instance that inserted it
 * (`claimReused`) and on another one, twice (`claimReusedElsewhere`, then `…Again`), a claim
 * `busy` behind another owner's, one `limited`, and `endStart`.
 */
export async function measureStartPaths(setup: StartPathsSetup): Promise<ReceiverPaths> {
  const { meter, store, elsewhere, label, now } = setup;
  const paths: ReceiverPaths = {};
  const counted = async () => {
    await meter.settled();
    return meter.take();
  };
  let sequence = 0;
  const user = `u1:${label}_starts`;
  const counters = (limit: number): CounterLike[] => [
    { key: `n1:u:${user}:day`, limit, ttlMs: 86_400_000 },
    { key: `n1:a:${label}:day`, ttlMs: 86_400_000 },
    { key: `n1:a:${label}:hour-1`, readOnly: true, ttlMs: 7_200_000 },
  ];
  const claimOf = (overrides: Partial<ClaimLike> = {}): ClaimLike => ({
    startKey: `s1:${label}_${++sequence}`,
    externalUserId: user,
    owner: `owner_${sequence}`,
    now,
    claimMs: 60_000,
    reuseMinLifetimeMs: 60_000,
    counters: counters(100),
    ...overrides,
  });
  const claim = async (on: StartStoreLike, options: ClaimLike, expected: string) => {
    const outcome = await on.claimStart!(options);
    if (outcome.claim !== expected) {
      throw new Error(`expected a claim ${expected}, got ${outcome.claim}`);
    }
  };
  const insert = async (on: StartStoreLike, options: ClaimLike) => {
    const { inserted } = await on.insert({
      record: startedSession(`t1:${options.startKey}`, user, now),
      now,
      start: { startKey: options.startKey, owner: options.owner },
    });
    if (!inserted) throw new Error('the started session was not inserted');
  };

  // Warm-up: every script and statement of the paths, on both instances.
  for (const on of [store, elsewhere]) {
    const warm = claimOf();
    await claim(on, warm, 'granted');
    await insert(on, warm);
    await claim(on, { ...warm, owner: 'warm' }, 'reuse');
    await on.endStart!({ startKey: claimOf().startKey, owner: 'warm', now });
  }
  await counted();

  const started = claimOf();
  await claim(store, started, 'granted');
  paths.claimGranted = await counted();
  await insert(store, started);
  paths.insertStarted = await counted();
  await claim(store, { ...started, owner: 'again' }, 'reuse');
  paths.claimReused = await counted();
  await claim(elsewhere, { ...started, owner: 'elsewhere' }, 'reuse');
  paths.claimReusedElsewhere = await counted();
  await claim(elsewhere, { ...started, owner: 'elsewhere' }, 'reuse');
  paths.claimReusedElsewhereAgain = await counted();

  const held = claimOf();
  await claim(store, held, 'granted');
  await counted();
  await claim(store, { ...held, owner: 'other' }, 'busy');
  paths.claimBusy = await counted();
  await store.endStart!({ startKey: held.startKey, owner: held.owner, now });
  paths.endStart = await counted();

  // Counts of their own, at their limit after one claim.
  const limited = claimOf({
    counters: counters(1).map((counter) => ({ ...counter, key: `${counter.key}:limited` })),
  });
  await claim(store, limited, 'granted');
  await counted();
  await claim(store, { ...limited, startKey: `${limited.startKey}_2` }, 'limited');
  paths.claimLimited = await counted();
  return paths;
}
