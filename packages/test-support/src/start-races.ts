import { type StartStoreLike, startedSession } from './start-round-trips.js';

/** What `raceStarts` saw. */
export interface StartRaces {
  /** Outcomes of the first race: claims of one start before its session exists. */
  first: Record<string, number>;
  /** Outcomes of the second race, once the granted claim inserted its session. */
  second: Record<string, number>;
  /** Whether every claim of the second race was handed the session the granted one inserted. */
  reusedTheInserted: boolean;
  /** Outcomes of the third race: claims of distinct starts sharing one counter. */
  third: Record<string, number>;
  /** The shared counter's count each granted claim of the third race saw, sorted. */
  countsSeen: number[];
}

/**
 * Races claims (`Store.claimStart`, contract rule 13) across `stores`, instances sharing one
 * store, each caller on the next instance in turn, all sent at once: `callers` claims of one
 * start; then, once the granted one inserted its session, `callers` claims of it again asking
 * for reuse; then `callers` claims of as many starts of one user sharing a counter whose limit
 * is `limit`.
 */
export async function raceStarts(
  stores: readonly StartStoreLike[],
  { label, now, callers, limit }: { label: string; now: number; callers: number; limit: number },
): Promise<StartRaces> {
  const user = `u1:${label}_racer`;
  const on = (index: number) => stores[index % stores.length]!;
  const tally = (outcomes: { claim: string }[]) => {
    const counted: Record<string, number> = {};
    for (const { claim } of outcomes) counted[claim] = (counted[claim] ?? 0) + 1;
    return counted;
  };
  const claim = (index: number, startKey: string, counters: { key: string; limit?: number }[]) =>
    on(index).claimStart!({
      startKey,
      externalUserId: user,
      owner: `owner_${index}`,
      now,
      claimMs: 60_000,
      reuseMinLifetimeMs: 60_000,
      counters: counters.map((counter) => ({ ...counter, ttlMs: 86_400_000 })),
    });
  const everyone = <T>(call: (index: number) => Promise<T>) =>
    Promise.all(Array.from({ length: callers }, (_, index) => call(index)));

  const startKey = `s1:${label}_one`;
  const first = await everyone((index) => claim(index, startKey, []));
  const winner = first.findIndex((outcome) => outcome.claim === 'granted');
  const insertedKey = `t1:${label}_session`;
  if (winner >= 0) {
    await on(winner).insert({
      record: startedSession(insertedKey, user, now),
      now,
      start: { startKey, owner: `owner_${winner}` },
    });
  }
  const second = await everyone((index) => claim(index, startKey, []));
  const shared = { key: `n1:u:${user}:day`, limit };
  const third = await everyone((index) => claim(index, `s1:${label}_${index}`, [shared]));
  return {
    first: tally(first),
    second: tally(second),
    reusedTheInserted: second.every((outcome) => outcome.record?.key === insertedKey),
    third: tally(third),
    countsSeen: third
      .flatMap((outcome) => (outcome.claim === 'granted' ? (outcome.counts ?? []) : []))
      .sort((a, b) => a - b),
  };
}

/**
 * What `raceStarts` sees on a store that keeps the contract: one claim granted of the first
 * race, every one of the second handed its session, and `limit` of the third granted, each
 * seeing its own count.
 */
export function startRacesKept({ callers, limit }: { callers: number; limit: number }): StartRaces {
  return {
    first: { granted: 1, busy: callers - 1 },
    second: { reuse: callers },
    reusedTheInserted: true,
    third: { granted: limit, limited: callers - limit },
    countsSeen: Array.from({ length: limit }, (_, index) => index + 1),
  };
}
