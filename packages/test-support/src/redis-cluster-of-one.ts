import { Cluster, Redis } from 'ioredis';
import type { RedisServer, StartOptions } from './redis-server.js';
import { waitFor } from './wait-for.js';

/** `startRedisServer` options for a node in cluster mode (see `clusterOfOne`). */
export const CLUSTER_MODE: StartOptions = {
  args: [
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    'nodes.conf',
    '--cluster-announce-ip',
    '127.0.0.1',
  ],
};

/**
 * A cluster of one node (started with `CLUSTER_MODE`) that owns every slot: enough to run a
 * store through ioredis' Cluster client, as a Redis Cluster deployment does. The caller
 * disconnects it.
 */
export async function clusterOfOne(server: RedisServer): Promise<Cluster> {
  const node = new Redis(server.url, { maxRetriesPerRequest: 1 });
  node.on('error', () => {});
  try {
    await node.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    await waitFor(
      async () => (await node.cluster('INFO')).includes('cluster_state:ok'),
      'the cluster of one to own every slot',
    );
  } finally {
    node.disconnect();
  }
  return new Cluster([{ host: '127.0.0.1', port: server.port }], {
    redisOptions: { maxRetriesPerRequest: 1 },
  });
}
