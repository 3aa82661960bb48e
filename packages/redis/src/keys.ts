const STATES = ['pending', 'delivering', 'completed', 'expired', 'failed'] as const;

/**
 * Names of the Redis keys the store reads and writes from TypeScript, all under one prefix.
 * The scripts name the rest themselves from the same prefix (see scripts/record-lifetime.ts):
 * - `s:<key>` hash: one tracked record.
 * - `due` sorted set: keys of open records scored by `dueAt`.
 * - `uo:<externalUserId>` sorted set: the user's open records, scored by `createdAt`.
 * - `uc:<externalUserId>` sorted set: the user's retained closed records, by purge time.
 * - `n:<state>` sorted sets: each state's records, scored by when each ends.
 * - `d:<digest>` string: the end of a remembered delivery digest's window.
 * - `st:<startKey>` hash: one start (`Store.claimStart`): its user, the record it names, and
 *   the claim of whoever is creating its session (see scripts/starts.ts).
 * - `us:<externalUserId>` sorted set: the user's starts, scored by when each may be dropped.
 * - `c:<counter key>` hash: one count of starts and the end of its period.
 * - `marker` string: written on first use, never expiring; its absence tells that Redis lost
 *   the store's data (see memory-watch.ts).
 */
export interface StoreKeys {
  record(key: string): string;
  openIndex(externalUserId: string): string;
  digest(digest: string): string;
  start(startKey: string): string;
  startIndex(externalUserId: string): string;
  startCount(counterKey: string): string;
  readonly due: string;
  /** `n:failed`: the dead letters, scored by the end of their retention. */
  readonly deadLetters: string;
  readonly marker: string;
  /** The keys every record script may touch: `due` and the five state sets. */
  readonly shared: readonly string[];
  closedIndex(externalUserId: string): string;
  /**
   * The prefix the scripts build every key from. ioredis adds its `keyPrefix` only to keys
   * passed as KEYS, so this includes it.
   */
  readonly scriptPrefix: string;
  /** The client's `keyPrefix`, which ioredis adds to KEYS and scripts see in key names. */
  readonly clientPrefix: string;
}

export function storeKeys(prefix: string, clientKeyPrefix: string): StoreKeys {
  return {
    record: (key) => `${prefix}s:${key}`,
    openIndex: (externalUserId) => `${prefix}uo:${externalUserId}`,
    digest: (digest) => `${prefix}d:${digest}`,
    start: (startKey) => `${prefix}st:${startKey}`,
    startIndex: (externalUserId) => `${prefix}us:${externalUserId}`,
    startCount: (counterKey) => `${prefix}c:${counterKey}`,
    due: `${prefix}due`,
    deadLetters: `${prefix}n:failed`,
    marker: `${prefix}marker`,
    shared: [`${prefix}due`, ...STATES.map((state) => `${prefix}n:${state}`)],
    closedIndex: (externalUserId) => `${prefix}uc:${externalUserId}`,
    scriptPrefix: `${clientKeyPrefix}${prefix}`,
    clientPrefix: clientKeyPrefix,
  };
}
