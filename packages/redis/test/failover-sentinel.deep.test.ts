import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreAlarm } from '@faceverify/core';
import {
  freePort,
  type RedisServer,
  startRedisServer,
  startTcpProxy,
  type TcpProxy,
  waitFor,
} from '@faceverify/test-support';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { uniquePrefix } from './support/clients.js';
import { alarmsOf, caughtUp, complete, deliverable, once, statesOf } from './support/failover.js';

// A real Sentinel failover to a replica that fell behind (pnpm test:deep: a failover takes
// seconds). A primary, a replica that replicates through a proxy (held back at a chosen point:
// what the primary sends after it never reaches the replica), and three sentinels. The
// application reaches Redis as production does, through ioredis asking the sentinels for the
// primary. The primary dies; the sentinels promote the replica that lacks the last writes.
const MASTER = 'faceverify';
const RESULTS = 300;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Sentinel {
  port: number;
  process: ChildProcess;
}

/** `redis-server <config> --sentinel` watching `primaryPort`, with a config file of its own. */
async function startSentinel(primaryPort: number): Promise<Sentinel> {
  const dir = mkdtempSync(join(tmpdir(), 'faceverify-sentinel-'));
  const port = await freePort();
  const config = join(dir, 'sentinel.conf');
  writeFileSync(
    config,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${MASTER} 127.0.0.1 ${primaryPort} 2`,
      `sentinel down-after-milliseconds ${MASTER} 1000`,
      // Also how long a replica may replicate from another address (our proxy) before a
      // sentinel points it at the primary itself: far longer than this test.
      `sentinel failover-timeout ${MASTER} 180000`,
      `sentinel parallel-syncs ${MASTER} 1`,
      '',
    ].join('\n'),
  );
  const child = spawn('redis-server', [config, '--sentinel'], { stdio: 'ignore' });
  cleanups.push(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  probe.on('error', () => undefined);
  await waitFor(async () => {
    try {
      if (probe.status !== 'ready') await probe.connect();
      return (await probe.ping()) === 'PONG';
    } catch {
      return false;
    }
  }, `sentinel on port ${port} to answer`);
  probe.disconnect();
  return { port, process: child };
}

interface Setup {
  primary: RedisServer;
  admin: Redis;
  replicaAdmin: Redis;
  replication: TcpProxy;
  sentinels: Sentinel[];
  app: Redis;
}

async function sentinelSetup(primaryArgs: string[] = []): Promise<Setup> {
  const primary = await startRedisServer({
    args: ['--repl-diskless-sync-delay', '0', ...primaryArgs],
  });
  cleanups.push(() => primary.stop());
  const replication = await startTcpProxy(primary.port);
  cleanups.push(() => replication.close());
  const replica = await startRedisServer({
    args: ['--replicaof', '127.0.0.1', String(replication.port)],
  });
  cleanups.push(() => replica.stop());
  const admin = new Redis(primary.url, { maxRetriesPerRequest: 0 });
  const replicaAdmin = new Redis(replica.url, { maxRetriesPerRequest: 1 });
  for (const client of [admin, replicaAdmin]) {
    client.on('error', () => undefined);
    cleanups.push(() => client.disconnect());
  }
  await caughtUp(admin, replicaAdmin);
  const sentinels = [];
  for (let index = 0; index < 3; index++) sentinels.push(await startSentinel(primary.port));
  const watcher = new Redis({ port: sentinels[0]!.port, host: '127.0.0.1' });
  watcher.on('error', () => undefined);
  // Each sentinel knows the replica and the two others before anything is written.
  await waitFor(async () => {
    const replicas = (await watcher.call('SENTINEL', 'REPLICAS', MASTER)) as unknown[];
    const others = (await watcher.call('SENTINEL', 'SENTINELS', MASTER)) as unknown[];
    return replicas.length === 1 && others.length === 2;
  }, 'the sentinels to know the replica and each other');
  watcher.disconnect();
  const app = new Redis({
    sentinels: sentinels.map(({ port }) => ({ host: '127.0.0.1', port })),
    name: MASTER,
    maxRetriesPerRequest: 2,
  });
  app.on('error', () => undefined);
  cleanups.push(() => app.disconnect());
  return { primary, admin, replicaAdmin, replication, sentinels, app };
}

/** The primary dies at once (no save, no wait for its replica); the sentinels promote it. */
async function killPrimaryAndWaitForFailover(setup: Setup): Promise<void> {
  const oldPort = setup.primary.port;
  await setup.admin.call('SHUTDOWN', 'NOSAVE', 'NOW', 'FORCE').catch(() => undefined);
  const watcher = new Redis({ port: setup.sentinels[0]!.port, host: '127.0.0.1' });
  watcher.on('error', () => undefined);
  await waitFor(async () => {
    const address = (await watcher.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER)) as
      | [string, string]
      | null;
    return address !== null && Number(address[1]) !== oldPort;
  }, 'the sentinels to promote the replica');
  watcher.disconnect();
  await waitFor(
    async () => /^role:master/m.test(await setup.replicaAdmin.info('replication')),
    'the replica to be the primary',
  );
}

function lostWrites(alarm: StoreAlarm | undefined): number {
  return Number(/the last (\d+) writes that Redis acknowledged/.exec(alarm?.message ?? '')?.[1]);
}

describe('a Sentinel failover to a replica that fell behind', () => {
  it('is reported as store_rewound, and the successes recorded after it fell behind are delivered again', async () => {
    const setup = await sentinelSetup();
    const store = new RedisStore({ redis: setup.app, prefix: uniquePrefix('sentinel') });
    const alarms = alarmsOf(store);
    const records = await deliverable(store, RESULTS);
    const [before, after] = [records.slice(0, RESULTS / 2), records.slice(RESULTS / 2)];
    await complete(store, before);
    await caughtUp(setup.admin, setup.replicaAdmin);
    // From here on the replica receives nothing: acknowledged by the primary alone.
    setup.replication.hold();
    await complete(store, after);
    expect(await statesOf(store, records)).toEqual({ completed: RESULTS });
    expect(setup.replication.held()).toBeGreaterThan(0);

    await killPrimaryAndWaitForFailover(setup);
    const states = await once(() => statesOf(store, records));
    await once(() => store.dueSummary({ now: Date.now() }));
    expect(alarms.map((alarm) => alarm.code)).toEqual(['store_rewound']);
    // Each lease and settle is a write or more: at least two per success lost.
    expect(lostWrites(alarms[0])).toBeGreaterThanOrEqual(2 * after.length);
    expect(states).toEqual({ completed: before.length, delivering: after.length });
    console.log(
      `Sentinel failover: ${states.delivering} of ${RESULTS} recorded successes lost (delivered again); store_rewound counted ${lostWrites(alarms[0])} writes lost`,
    );
  });

  it('with waitForReplicas and min-replicas-to-write, loses no success WAIT acknowledged', async () => {
    const setup = await sentinelSetup([
      '--min-replicas-to-write',
      '1',
      '--min-replicas-max-lag',
      '10',
    ]);
    const store = new RedisStore({
      redis: setup.app,
      prefix: uniquePrefix('sentinel-wait'),
      waitForReplicas: { replicas: 1, timeoutMs: 500 },
    });
    const alarms = alarmsOf(store);
    const records = await deliverable(store, RESULTS);
    const [before, after] = [records.slice(0, RESULTS / 2), records.slice(RESULTS / 2)];
    // Each settle resolved once WAIT said the replica has it.
    await complete(store, before);
    expect(alarms).toEqual([]);
    setup.replication.hold();
    // The replica gets nothing now: these WAITs lapse, and the store says so.
    await complete(store, after);
    expect(alarms.map((alarm) => alarm.code)).toEqual(['store_unreplicated']);

    await killPrimaryAndWaitForFailover(setup);
    const states = await once(() => statesOf(store, records));
    await once(() => store.dueSummary({ now: Date.now() }));
    // Every success acknowledged as replicated survived; those told unreplicated are lost.
    expect(await statesOf(store, before)).toEqual({ completed: before.length });
    expect(states).toEqual({ completed: before.length, delivering: after.length });
    expect(alarms.map((alarm) => alarm.code)).toEqual(['store_unreplicated', 'store_rewound']);
    console.log(
      `Sentinel failover with waitForReplicas: ${before.length} of ${before.length} replicated successes kept; ${states.delivering} told unreplicated were lost`,
    );
  });
});
