import { CLUSTER_MODE, type RedisServer, useRedisServer } from '@faceverify/test-support';

export { clusterOfOne } from '@faceverify/test-support';

/** A redis-server of the test file's own in cluster mode (see `clusterOfOne`). */
export function useClusterServer(): () => RedisServer {
  return useRedisServer(CLUSTER_MODE);
}
