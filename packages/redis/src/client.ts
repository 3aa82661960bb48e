import type { Cluster, Redis } from 'ioredis';

/** The connection a RedisStore works through: a single node (or Sentinel) client, or a Cluster. */
export type RedisClient = Redis | Cluster;

/** The `keyPrefix` ioredis adds to every key it sends, when the user configured one. */
export function clientKeyPrefix(redis: RedisClient): string {
  return redis.options.keyPrefix ?? '';
}

/** Every password the client was configured with, so that no error message can carry one. */
export function clientSecrets(redis: RedisClient): string[] {
  const options = redis.isCluster
    ? (redis as Cluster).options.redisOptions
    : (redis as Redis).options;
  const secrets = [options?.password];
  if (!redis.isCluster) secrets.push((redis as Redis).options.sentinelPassword);
  return secrets.filter((secret): secret is string => typeof secret === 'string' && secret !== '');
}
