import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createReceiver } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { atDepth, type RedisServer, startRedisServer } from '@faceverify/test-support';
import { Cluster, type Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect } from './support/clients.js';
import { trackedSession } from './support/records.js';

// Issue 19, item 4: the store's slot moves to another master of a real 3-master cluster,
// key by key (CLUSTER SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE, as
// `redis-cli --cluster reshard` does), while webhooks are received and delivered.
const run = promisify(execFile);
const SECRET = 'whsec_redis_reshard_test_5c0e19';
const PREFIX = '{fvreshard}:';
const USERS = atDepth({ standard: 200, deep: 1_000 });
const servers: RedisServer[] = [];
let cluster: Cluster;

function clusterReady(node: Redis): Promise<boolean> {
  return node.cluster('INFO').then((info) => String(info).includes('cluster_state:ok'));
}

beforeAll(async () => {
  for (let i = 0; i < 3; i++) {
    servers.push(
      await startRedisServer({
        args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
      }),
    );
  }
  await run('redis-cli', [
    '--cluster',
    'create',
    ...servers.map((server) => `127.0.0.1:${server.port}`),
    '--cluster-replicas',
    '0',
    '--cluster-yes',
  ]);
  const nodes = servers.map((server) => connect(server.url));
  // Waits for a positive signal: every node sees the cluster ok.
  while (!(await Promise.all(nodes.map(clusterReady))).every(Boolean)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  cluster = new Cluster([{ host: '127.0.0.1', port: servers[0]!.port }], {
    // While the slot moves, Redis answers a script whose keys are split between the nodes
    // with TRYAGAIN; the client retries it until the keys are together again.
    maxRedirections: 10_000,
    retryDelayOnTryAgain: 5,
    redisOptions: { maxRetriesPerRequest: 1 },
  });
  cluster.on('error', () => {});
});

afterAll(async () => {
  cluster?.disconnect();
  for (const server of servers.splice(0)) await server.stop();
});

async function nodeId(node: Redis): Promise<string> {
  return String(await node.cluster('MYID'));
}

describe('resharding the store slot on a 3-master Redis Cluster', () => {
  it('loses nothing and runs nothing twice while webhooks flow', { timeout: 120_000 }, async () => {
    const nodes = servers.map((server) => connect(server.url));
    const slot = Number(await nodes[0]!.cluster('KEYSLOT', PREFIX));
    const owners = await Promise.all(
      nodes.map(async (node) => Number(await node.cluster('COUNTKEYSINSLOT', slot)) >= 0),
    );
    expect(owners.every(Boolean)).toBe(true);
    const slots = (await nodes[0]!.cluster('SLOTS')) as unknown as [
      number,
      number,
      [string, number],
    ][];
    const ownerPort = slots.find(([from, to]) => from <= slot && slot <= to)![2][1];
    const source = nodes[servers.findIndex((server) => server.port === ownerPort)]!;
    const target = nodes.find((node) => node !== source)!;
    const targetPort = servers[nodes.indexOf(target)]!.port;

    const store = new RedisStore({ redis: cluster, prefix: PREFIX });
    // The sessions below are written to the store directly, with their users' ids as they
    // are (as before ids were hashed): the Receiver looks them up that way too.
    const receiver = createReceiver({
      secret: SECRET,
      client: false,
      store,
      lookUpClearUserIds: true,
    });
    const handled = new Map<string, number>();
    const errors: unknown[] = [];
    receiver.on('verification.completed', (event) => {
      const user = event.data.external_user_id;
      handled.set(user, (handled.get(user) ?? 0) + 1);
    });
    receiver.on('error', (error) => errors.push(error));

    // Sessions tracked before: each webhook finds its user's session (attach, lease, settle).
    const now = Date.now();
    for (let i = 0; i < USERS; i++) {
      await store.insert({
        record: trackedSession({ key: `tok_${i}`, externalUserId: `u${i}`, dueAt: now + 600_000 }),
        now,
        maxOpenPerUser: 20,
      });
    }
    const deliveries = await Promise.all(
      Array.from({ length: USERS }, (_, i) =>
        signedDelivery(fixturePayload({ external_user_id: `u${i}` }), { secret: SECRET }),
      ),
    );

    // Webhooks flow before, during and after the move: one more is sent after each
    // migration batch, without waiting for the ones in flight. Redis makes a script whose
    // keys are split between the two nodes wait (TRYAGAIN) until they are together again, so
    // those are answered once their keys have moved.
    const statuses: number[] = [];
    let sent = 0;
    const send = () =>
      receiver.receive(deliveries[sent++]!).then((response) => {
        statuses.push(response.status);
      });
    await Promise.all(Array.from({ length: 20 }, send));

    const inFlight: Promise<void>[] = [];
    const sourceId = await nodeId(source);
    const targetId = await nodeId(target);
    await target.cluster('SETSLOT', slot, 'IMPORTING', sourceId);
    await source.cluster('SETSLOT', slot, 'MIGRATING', targetId);
    const sentBefore = sent;
    // The marker and the records move first, then the users' indexes, `due` and the state
    // sets last: the order in which a script that declared only some of its keys runs on a
    // node lacking the others.
    const RANKS = ['marker', 's:', 'uo:', 'uc:', 'd:', 'n:', 'due'];
    const rank = (key: string) => RANKS.findIndex((start) => key.startsWith(PREFIX + start));
    const ordered = ((await source.cluster('GETKEYSINSLOT', slot, 100_000)) as string[]).sort(
      (a, b) => rank(a) - rank(b),
    );
    let batches = 0;
    for (;;) {
      const keys =
        ordered.length > 0
          ? ordered.splice(0, 3)
          : ((await source.cluster('GETKEYSINSLOT', slot, 3)) as string[]);
      if (keys.length === 0) break;
      // No REPLACE: a key the store wrote on the target behind the migration's back would
      // fail this with BUSYKEY ("Target key exists"), as it did before scripts declared keys.
      // A key of the list already gone (deleted or expired meanwhile) is skipped by MIGRATE.
      await source.call('MIGRATE', '127.0.0.1', targetPort, '', 0, 5000, 'KEYS', ...keys);
      batches++;
      for (let i = 0; i < 3 && sent < USERS; i++) inFlight.push(send());
      // A sweep and a health check on the way, as a running receiver makes them.
      inFlight.push(receiver.sweep().then(() => undefined));
    }
    const sentWhileMigrating = sent - sentBefore;
    for (const node of nodes) await node.cluster('SETSLOT', slot, 'NODE', targetId);
    while (sent < USERS) inFlight.push(send());
    await Promise.all(inFlight);

    expect(batches).toBeGreaterThan(3);
    expect(sentWhileMigrating).toBeGreaterThan(50);
    expect(errors).toEqual([]);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // Nothing lost, nothing twice.
    expect(handled.size).toBe(USERS);
    expect([...handled.values()].every((count) => count === 1)).toBe(true);
    expect(Number(await source.cluster('COUNTKEYSINSLOT', slot))).toBe(0);

    // The store's invariants hold on the new owner: every session completed, found by its
    // user, counted once; nothing due; a replayed webhook is a duplicate.
    const after = Date.now();
    expect(await store.counts({ now: after })).toEqual({
      pending: 0,
      delivering: 0,
      completed: USERS,
      expired: 0,
      failed: 0,
    });
    for (let i = 0; i < USERS; i++) {
      const found = await store.findByUser({ externalUserId: `u${i}`, now: after, limit: 10 });
      expect(found.map((record) => [record.key, record.state])).toEqual([
        [`tok_${i}`, 'completed'],
      ]);
    }
    expect(
      await store.leaseDue({ now: after + 600_000, limit: 10, owner: 'w', leaseMs: 1 }),
    ).toEqual([]);
    for (const delivery of deliveries.slice(0, 10)) {
      expect(JSON.parse((await receiver.receive(delivery)).body)).toMatchObject({
        duplicate: true,
      });
    }
    expect([...handled.values()].every((count) => count === 1)).toBe(true);
  });
});
