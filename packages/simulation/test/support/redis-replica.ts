import { startRedisServer, startTcpProxy, waitFor } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import type { RealFailover } from '../../src/simulated-store.js';

export interface RedisWithReplica {
  /** Where the application connects: a proxy in front of whichever server is the primary. */
  url: string;
  failover: RealFailover;
  stop(): Promise<void>;
}

function field(info: string, name: string): number {
  return Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? Number.NaN);
}

/**
 * A Redis primary, a replica following it, and a proxy the application reaches the primary
 * through (a virtual IP). `detach` stops the replica where it is, once it has everything so
 * far; `promote` moves the proxy to it. What the primary wrote between the two (its
 * replication offset, which only writes advance) is what the failover lost.
 */
export async function redisWithReplica(): Promise<RedisWithReplica> {
  const primaryServer = await startRedisServer({ args: ['--repl-diskless-sync-delay', '0'] });
  const replicaServer = await startRedisServer({
    args: ['--replicaof', '127.0.0.1', String(primaryServer.port)],
  });
  const proxy = await startTcpProxy(primaryServer.port);
  const primary = new Redis(primaryServer.url, { maxRetriesPerRequest: 1 });
  const replica = new Redis(replicaServer.url, { maxRetriesPerRequest: 1 });
  const offset = async () => field(await primary.info('replication'), 'master_repl_offset');
  const caughtUp = async () => {
    const target = await offset();
    await waitFor(async () => {
      const info = await replica.info('replication');
      return /^master_link_status:up/m.test(info) && field(info, 'slave_repl_offset') >= target;
    }, 'the replica to catch up with the primary');
  };
  await caughtUp();
  let detachedAt: number | undefined;
  return {
    url: `redis://127.0.0.1:${proxy.port}`,
    failover: {
      async detach() {
        await caughtUp();
        detachedAt = await offset();
        await replica.replicaof('NO', 'ONE');
      },
      async promote() {
        if (detachedAt === undefined) throw new Error('The replica was never detached.');
        const lost = (await offset()) - detachedAt;
        proxy.retarget(replicaServer.port);
        return lost;
      },
    },
    async stop() {
      primary.disconnect();
      replica.disconnect();
      await proxy.close();
      await replicaServer.stop();
      await primaryServer.stop();
    },
  };
}
