import { ConfigurationError } from '@faceverify/core';
import { clientKeyPrefix, type RedisClient } from './client.js';
import type { WaitForReplicasOptions } from './replica-wait.js';

/** Options of `new RedisStore(...)`. */
export interface RedisStoreOptions {
  /**
   * The ioredis client to work through: `new Redis(...)` for a single node or Sentinel, or
   * `new Cluster(...)`. The application owns it: the store never connects, quits or
   * reconfigures it, and several stores may share it.
   */
  redis: RedisClient;
  /**
   * Put before every key the store writes, so several applications or environments can
   * share one Redis. On a Cluster it must hold a hash tag (`{faceverify}:`), which puts
   * every key of the store in one slot. Default `'faceverify:'`.
   */
  prefix?: string;
  /**
   * Run even though Redis may evict keys (a `maxmemory-policy` other than `noeviction`).
   * By default the store refuses to work then, since every key it writes has a TTL and an
   * evicted record means a result lost or handled twice. When set, the store raises a
   * `store_eviction_risk` alarm at first use and a `store_reset` alarm whenever Redis
   * evicts keys. Default `false`.
   */
  allowEviction?: boolean;
  /**
   * Make each closing write (a recorded success, a record given up) durable on replicas
   * before `settle` resolves: the store sends `WAIT <replicas> <timeoutMs>` after it, on a
   * connection of its own, so a failover to any of those replicas keeps it. Costs one more
   * round trip plus the replicas' lag per closing write (writes finishing together share one
   * WAIT); other operations never wait behind it. When fewer replicas acknowledge within
   * `timeoutMs`, the write stands on the primary alone: the store raises `store_unreplicated`
   * (once, until a WAIT succeeds again) and goes on; it never claims the write is
   * replicated. Not on a Cluster (refused at construction). Default: no WAIT.
   */
  waitForReplicas?: WaitForReplicasOptions;
  /**
   * Count this process's scripts in a key of its own (`w:<id>`, kept 7 days after its last
   * script), by which the store tells a Redis that went back in time and lost writes it had
   * acknowledged to this process (`store_rewound`). A process that makes a call or two and
   * exits (a command line that reads or erases) learns nothing from its count: `false` leaves
   * it out, and the process then writes nothing but what its calls write. Default `true`.
   */
  watchRewinds?: boolean;
}

export interface ResolvedRedisStoreOptions {
  redis: RedisClient;
  prefix: string;
  allowEviction: boolean;
  watchRewinds: boolean;
  waitForReplicas?: WaitForReplicasOptions;
}

/** Whether Redis Cluster would hash every key starting with `keyStart` by the same tag. */
function hasHashTag(keyStart: string): boolean {
  // Redis hashes only what lies between the first '{' and the next '}', when not empty.
  const open = keyStart.indexOf('{');
  return open >= 0 && keyStart.indexOf('}', open + 1) > open + 1;
}

export function resolveRedisStoreOptions(options: RedisStoreOptions): ResolvedRedisStoreOptions {
  const redis: RedisClient | undefined = options?.redis;
  if (!redis || typeof redis.evalsha !== 'function') {
    throw new ConfigurationError(
      'RedisStore needs `redis`: an ioredis client, e.g. new RedisStore({ redis: new Redis(url) }).',
    );
  }
  const prefix = options.prefix ?? 'faceverify:';
  if (prefix === '') {
    throw new ConfigurationError('RedisStore `prefix` must not be empty: keys would collide.');
  }
  // Scripts touch many records at once, which Redis Cluster allows only within one slot.
  if (redis.isCluster && !hasHashTag(clientKeyPrefix(redis) + prefix)) {
    throw new ConfigurationError(
      `RedisStore on a Redis Cluster needs a hash tag in \`prefix\` (e.g. '{faceverify}:'), ` +
        `so that all its keys share one slot; got '${prefix}'.`,
    );
  }
  const waitForReplicas = resolveWaitForReplicas(redis, options.waitForReplicas);
  return {
    redis,
    prefix,
    allowEviction: options.allowEviction === true,
    watchRewinds: options.watchRewinds !== false,
    ...(waitForReplicas ? { waitForReplicas } : {}),
  };
}

function resolveWaitForReplicas(
  redis: RedisClient,
  wait: WaitForReplicasOptions | undefined,
): WaitForReplicasOptions | undefined {
  if (wait === undefined) return undefined;
  const { replicas, timeoutMs } = wait ?? {};
  if (!Number.isSafeInteger(replicas) || replicas < 1) {
    throw new ConfigurationError(
      `RedisStore \`waitForReplicas.replicas\` must be a whole number of replicas, at least 1; got ${String(replicas)}.`,
    );
  }
  // WAIT with a timeout of 0 blocks for ever: a replica down would stall every close.
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    throw new ConfigurationError(
      `RedisStore \`waitForReplicas.timeoutMs\` must be a whole number of ms, at least 1 (0 would wait for ever); got ${String(timeoutMs)}.`,
    );
  }
  if (redis.isCluster) {
    throw new ConfigurationError(
      "RedisStore `waitForReplicas` is not supported on a Redis Cluster yet: WAIT must reach the node that holds the store's slot on the connection that wrote. Use a single node or Sentinel, or leave it out.",
    );
  }
  return { replicas, timeoutMs };
}
