import type { StoredRecordHead, StoredRecordsCount } from '@faceverify/core';
import type { Cluster, Redis } from 'ioredis';
import { clientKeyPrefix, clientSecrets } from './client.js';
import { storeError } from './errors.js';
import { type RedisStoreOptions, resolveRedisStoreOptions } from './options.js';

/** Where a RedisStore keeps its data: the client, and the store's `prefix`. */
export type RedisStoreLocation = Pick<RedisStoreOptions, 'redis' | 'prefix'>;

/** Characters of each field read: a sealed text's prefix and first key id, a stored user id. */
const HEAD_LENGTH = 128;
/** Keys asked of SCAN per call, and records read per round trip. */
const BATCH = 500;

/**
 * Whether Redis holds any data of a RedisStore at `location`: a record, an index, a replay
 * digest. The marker and the write counts are not data: every instance writes them at its
 * first call, under whatever prefix it was given. Reads only (SCAN until the first key found):
 * a RedisStore's own calls write the marker and a write count before anything else, so a
 * command that must leave a wrong prefix untouched asks this first.
 */
export async function hasRedisStoreData(location: RedisStoreLocation): Promise<boolean> {
  let found = false;
  await scanStore(location, 'hasRedisStoreData', (name) => {
    found = !isBookkeeping(name);
    return found;
  });
  return found;
}

/**
 * Counts the records of a RedisStore at `location` by the class `classify` gives each, from
 * the start of its stored user, token and result fields; and says whether any data of the
 * store is there at all (see {@link hasRedisStoreData}). Reads only: SCAN over the whole
 * keyspace, then HMGET in batches. For a command line, not for a request path.
 */
export async function countRedisStoreRecords(
  location: RedisStoreLocation,
  classify: (record: StoredRecordHead) => string,
): Promise<StoredRecordsCount> {
  const { redis, prefix } = resolveRedisStoreOptions(location);
  const counts = new Map<string, number>();
  let found = false;
  let batch: string[] = [];
  const readBatch = async () => {
    const pipeline = redis.pipeline();
    for (const name of batch) pipeline.hmget(`${prefix}${name}`, 'user', 'token', 'result');
    batch = [];
    for (const [error, reply] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      const [user, token, result] = reply as (string | null)[];
      // A record removed since SCAN named it.
      if (typeof user !== 'string') continue;
      const kind = classify({
        user: user.slice(0, HEAD_LENGTH),
        token: token?.slice(0, HEAD_LENGTH) ?? undefined,
        result: result?.slice(0, HEAD_LENGTH) ?? undefined,
      });
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
  };
  await scanStore(location, 'countRedisStoreRecords', async (name) => {
    if (!isBookkeeping(name)) found = true;
    if (name.startsWith('s:')) batch.push(name);
    if (batch.length >= BATCH) await readBatch();
    return false;
  });
  try {
    if (batch.length > 0) await readBatch();
  } catch (error) {
    throw storeError('countRedisStoreRecords', error, clientSecrets(redis));
  }
  return { found, counts };
}

/** The marker and the write counts (`w:<id>`): written by any instance before any data. */
function isBookkeeping(name: string): boolean {
  return name === 'marker' || name.startsWith('w:');
}

/**
 * Calls `visit` with each key under the store's prefix, as its name after the prefix, until
 * `visit` returns true. On a Cluster, every master is scanned: the store's slot moves with a
 * resharding.
 */
async function scanStore(
  location: RedisStoreLocation,
  operation: string,
  visit: (name: string) => boolean | Promise<boolean>,
): Promise<void> {
  const { redis, prefix } = resolveRedisStoreOptions(location);
  // SCAN's pattern and the keys it returns carry the client's keyPrefix; the pattern's own
  // special characters in the prefix are escaped.
  const start = `${clientKeyPrefix(redis)}${prefix}`;
  const pattern = `${start.replace(/[*?[\]\\]/g, '\\$&')}*`;
  const nodes = redis.isCluster ? (redis as Cluster).nodes('master') : [redis as Redis];
  try {
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', BATCH);
        cursor = next;
        for (const key of keys) {
          if (await visit(key.slice(start.length))) return;
        }
      } while (cursor !== '0');
    }
  } catch (error) {
    throw storeError(operation, error, clientSecrets(redis));
  }
}
