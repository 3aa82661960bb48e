import { type RedisServer, useRedisServer } from '@faceverify/test-support';
import { CLUSTER_MODE } from '@faceverify/test-support/redis-cluster';

export { clusterOfOne } from '@faceverify/test-support/redis-cluster';

/** A redis-server of the test file's own in cluster mode (see `clusterOfOne`). */
export function useClusterServer(): () => RedisServer {
  return useRedisServer(CLUSTER_MODE);
}
