import {
  type RedisServer,
  startRedisServer,
  startTcpProxy,
  type TcpProxy,
} from '@faceverify/test-support';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { alarmsOf, caughtUp, complete, deliverable, once, statesOf } from './support/failover.js';

// A failover to a replica that was behind: the application reaches Redis through a proxy
// (a virtual IP), and the replica stops replicating at a chosen point before it becomes the
// primary, so exactly the writes after that point are lost. The full Sentinel run, with a
// replica held back behind a proxy, three sentinels and the primary killed, is in
// failover-sentinel.deep.test.ts (pnpm test:deep).
const started: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of started.splice(0).reverse()) await server.stop();
});

interface Pair {
  primary: Redis;
  replica: Redis;
  replicaServer: RedisServer;
  proxy: TcpProxy;
  app: Redis;
}

async function primaryAndReplica(): Promise<Pair> {
  // A primary syncs a new replica at once, not after the default 5 s wait for others.
  const primaryServer = await startRedisServer({ args: ['--repl-diskless-sync-delay', '0'] });
  started.push(primaryServer);
  const replicaServer = await startRedisServer({
    args: ['--replicaof', '127.0.0.1', String(primaryServer.port)],
  });
  started.push(replicaServer);
  const proxy = await startTcpProxy(primaryServer.port);
  started.push({ stop: () => proxy.close() });
  const primary = connect(primaryServer.url);
  const replica = connect(replicaServer.url);
  await caughtUp(primary, replica);
  const app = connect(`redis://127.0.0.1:${proxy.port}`, { maxRetriesPerRequest: 5 });
  return { primary, replica, replicaServer, proxy, app };
}

/** The replica stops replicating and becomes a primary: what it has not received is gone. */
async function promoteBehind(pair: Pair): Promise<void> {
  await pair.replica.replicaof('NO', 'ONE');
}

describe('a failover to a replica that was behind', () => {
  it('is reported as store_rewound, naming the writes lost; the store keeps working', async () => {
    const pair = await primaryAndReplica();
    const store = new RedisStore({ redis: pair.app, prefix: uniquePrefix('rewound') });
    const alarms = alarmsOf(store);
    const records = await deliverable(store, 30);
    const [before, after] = [records.slice(0, 20), records.slice(20)];
    await complete(store, before);
    await caughtUp(pair.primary, pair.replica);
    await promoteBehind(pair);
    // Acknowledged by the primary, never received by the replica: 10 leases and 10 settles.
    await complete(store, after);
    expect(await statesOf(store, records)).toEqual({ completed: 30 });
    expect(alarms).toEqual([]);

    pair.proxy.retarget(pair.replicaServer.port);
    // The recorded successes of `after` are gone: a sweep would deliver them again.
    expect(await once(() => statesOf(store, records))).toEqual({ completed: 20, delivering: 10 });
    expect(alarms).toEqual([]); // plain reads carry no check; the next script does
    await once(() => store.dueSummary({ now: Date.now() }));
    expect(alarms.map((alarm) => alarm.code)).toEqual(['store_rewound']);
    // Each lease and settle is one write or more (a round that asks for more keys is one).
    const lost = Number(
      /the last (\d+) writes that Redis acknowledged/.exec(alarms[0]!.message)?.[1],
    );
    expect(lost).toBeGreaterThanOrEqual(20);
    expect(alarms[0]!.message).toContain('waitForReplicas');

    // It goes on from what Redis holds, and says it once.
    await complete(store, after);
    expect(await statesOf(store, records)).toEqual({ completed: 30 });
    expect(alarms).toHaveLength(1);
  });

  it('with waitForReplicas, every success WAIT acknowledged survives; one it could not is an alarm', async () => {
    const pair = await primaryAndReplica();
    const prefix = uniquePrefix('wait');
    // While the replica follows, WAIT answers as soon as it has the write: a long timeout costs
    // nothing, and a loaded machine cannot make it lapse. Once the replica is cut off, a second
    // instance with a short one shows what a lapsed WAIT is told.
    const patient = new RedisStore({
      redis: pair.app,
      prefix,
      waitForReplicas: { replicas: 1, timeoutMs: 30_000 },
    });
    const store = new RedisStore({
      redis: pair.app,
      prefix,
      waitForReplicas: { replicas: 1, timeoutMs: 150 },
    });
    const patientAlarms = alarmsOf(patient);
    const alarms = alarmsOf(store);
    const records = await deliverable(store, 30);
    const [before, after] = [records.slice(0, 20), records.slice(20)];
    // No wait for the replica here: each settle resolved only once WAIT said it has it.
    await complete(patient, before);
    await promoteBehind(pair);
    expect(patientAlarms).toEqual([]);
    await complete(store, after);
    expect(alarms.map((alarm) => alarm.code)).toEqual(['store_unreplicated']);
    expect(alarms[0]!.message).toMatch(/reached 0 of the 1 replicas asked for within 150 ms/);

    pair.proxy.retarget(pair.replicaServer.port);
    const states = await once(() => statesOf(store, records));
    expect(await statesOf(store, before)).toEqual({ completed: 20 });
    expect(states).toEqual({ completed: 20, delivering: 10 });
    await once(() => store.dueSummary({ now: Date.now() }));
    expect(alarms.map((alarm) => alarm.code)).toEqual(['store_unreplicated', 'store_rewound']);
  });

  it('raises nothing over a failover to a replica that had everything', async () => {
    const pair = await primaryAndReplica();
    const store = new RedisStore({ redis: pair.app, prefix: uniquePrefix('clean') });
    const alarms = alarmsOf(store);
    const records = await deliverable(store, 10);
    await complete(store, records);
    await caughtUp(pair.primary, pair.replica);
    await promoteBehind(pair);
    pair.proxy.retarget(pair.replicaServer.port);
    await once(() => store.dueSummary({ now: Date.now() }));
    expect(await statesOf(store, records)).toEqual({ completed: 10 });
    expect(alarms).toEqual([]);
  });
});

describe('waitForReplicas', () => {
  for (const [wait, message] of [
    [{ replicas: 0, timeoutMs: 100 }, /replicas` must be a whole number of replicas, at least 1/],
    [{ replicas: 1, timeoutMs: 0 }, /timeoutMs` must be a whole number of ms, at least 1/],
  ] as const) {
    it(`refuses ${JSON.stringify(wait)}`, () => {
      expect(() => new RedisStore({ redis: connect(), waitForReplicas: wait })).toThrow(message);
    });
  }
});
