/**
 * Names of the Redis keys the store reads and writes from TypeScript, all under one prefix.
 * The scripts name the rest themselves from the same prefix (see scripts/record-lifetime.ts):
 * - `s:<key>` hash: one tracked record.
 * - `due` sorted set: keys of open records scored by `dueAt`.
 * - `uo:<externalUserId>` sorted set: the user's open records, scored by `createdAt`.
 * - `uc:<externalUserId>` sorted set: the user's retained closed records, by purge time.
 * - `n:<state>` sorted sets: each state's records, scored by when each ends.
 * - `d:<digest>` string: the end of a remembered delivery digest's window.
 * - `marker` string: written on first use, never expiring; its absence tells that Redis lost
 *   the store's data (see memory-watch.ts).
 */
export interface StoreKeys {
  record(key: string): string;
  openIndex(externalUserId: string): string;
  digest(digest: string): string;
  readonly due: string;
  readonly marker: string;
  /**
   * The prefix the scripts build every key from. ioredis adds its `keyPrefix` only to keys
   * passed as KEYS, so this includes it.
   */
  readonly scriptPrefix: string;
}

export function storeKeys(prefix: string, clientKeyPrefix: string): StoreKeys {
  return {
    record: (key) => `${prefix}s:${key}`,
    openIndex: (externalUserId) => `${prefix}uo:${externalUserId}`,
    digest: (digest) => `${prefix}d:${digest}`,
    due: `${prefix}due`,
    marker: `${prefix}marker`,
    scriptPrefix: `${clientKeyPrefix}${prefix}`,
  };
}
