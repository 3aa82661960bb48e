import { type RedisServer, useRedisServer } from '@faceverify/test-support';
import { Cluster } from 'ioredis';
import { connect } from './clients.js';

/** A redis-server of the test file's own in cluster mode (see `clusterOfOne`). */
export function useClusterServer(): () => RedisServer {
  return useRedisServer({
    args: [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-announce-ip',
      '127.0.0.1',
    ],
  });
}

/**
 * A cluster of one node that owns every slot: enough to run the store through ioredis'
 * Cluster client. The caller disconnects it.
 */
export async function clusterOfOne(server: RedisServer): Promise<Cluster> {
  const node = connect(server.url);
  await node.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
  for (let i = 0; i < 100 && !(await node.cluster('INFO')).includes('cluster_state:ok'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return new Cluster([{ host: '127.0.0.1', port: server.port }], {
    redisOptions: { maxRetriesPerRequest: 1 },
  });
}
