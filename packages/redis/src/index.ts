/**
 * Redis store for faceverify: shared tracking, exactly-once claims and dedup across instances.
 *
 * @module @faceverify/redis
 */

export type { RedisClient } from './client.js';
export { RedisStoreError, type RedisStoreFailure } from './errors.js';
export {
  countRedisStoreRecords,
  hasRedisStoreData,
  type RedisStoreLocation,
} from './inspect-store.js';
export type { RedisStoreOptions } from './options.js';
export { RedisStore } from './redis-store.js';
export type { WaitForReplicasOptions } from './replica-wait.js';
