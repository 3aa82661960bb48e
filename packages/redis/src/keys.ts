import type { TrackedState } from '@faceverify/core/store';

/**
 * Names of every Redis key the store uses, all under one prefix:
 * - `s:<key>` hash: one tracked record.
 * - `u:<externalUserId>` sorted set: the user's record keys, scored by when each may be
 *   purged (`+inf` while open).
 * - `d:<digest>` string: a remembered delivery digest, with its own expiry.
 * - `due` sorted set: keys of open records scored by `dueAt`.
 * - `counts` hash: number of `pending` and `delivering` records.
 * - `closed:completed`, `closed:expired` sorted sets: retained closed records scored by
 *   their purge time, so counting them never scans.
 */
export interface StoreKeys {
  record(key: string): string;
  userIndex(externalUserId: string): string;
  digest(digest: string): string;
  readonly due: string;
  readonly counts: string;
  closed(state: Extract<TrackedState, 'completed' | 'expired'>): string;
  /**
   * Prefixes that scripts complete themselves (record keys found in the due set or a user
   * index). ioredis adds its `keyPrefix` only to keys passed as KEYS, so these include it.
   */
  readonly scriptRecordPrefix: string;
  readonly scriptUserIndexPrefix: string;
}

export function storeKeys(prefix: string, clientKeyPrefix: string): StoreKeys {
  return {
    record: (key) => `${prefix}s:${key}`,
    userIndex: (externalUserId) => `${prefix}u:${externalUserId}`,
    digest: (digest) => `${prefix}d:${digest}`,
    due: `${prefix}due`,
    counts: `${prefix}counts`,
    closed: (state) => `${prefix}closed:${state}`,
    scriptRecordPrefix: `${clientKeyPrefix}${prefix}s:`,
    scriptUserIndexPrefix: `${clientKeyPrefix}${prefix}u:`,
  };
}
