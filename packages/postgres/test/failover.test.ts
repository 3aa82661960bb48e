import type { StoreAlarm } from '@faceverify/core';
import type { TrackedSession } from '@faceverify/core/store';
import {
  type PostgresServer,
  startPostgresReplica,
  startPostgresServer,
  startTcpProxy,
  type TcpProxy,
  waitFor,
} from '@faceverify/test-support';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';
import { storedResult, trackedSession } from './support/records.js';

// A streaming replica promoted while behind: the application reaches PostgreSQL through a
// proxy (a virtual IP), the replica streams through another, which holds the WAL back at a
// chosen point; the primary stops, the replica is promoted and the application's proxy moves
// to it. Exactly the commits after that point are lost.
const stops: (() => Promise<void>)[] = [];
let primary: PostgresServer;
let replica: PostgresServer;
let streaming: TcpProxy;
let app: TcpProxy;
let database: string;

beforeAll(async () => {
  primary = await startPostgresServer();
  stops.push(() => primary.stop());
  database = await primary.createDatabase('failover');
  const admin = connect(primary.url(database));
  // An application role without pg_read_server_files: it cannot read the timeline history.
  await admin.query(`CREATE ROLE app LOGIN PASSWORD '${primary.password}'`);
  await admin.query(`GRANT ALL ON DATABASE ${database} TO app`);
  await admin.query('GRANT ALL ON SCHEMA public TO app');
  await admin.query('CREATE TABLE effects (key text PRIMARY KEY)');
  await admin.query('GRANT ALL ON effects TO app');
  streaming = await startTcpProxy(primary.port);
  stops.push(() => streaming.close());
  replica = await startPostgresReplica(primary, { port: streaming.port });
  stops.push(() => replica.stop());
  app = await startTcpProxy(primary.port);
  stops.push(() => app.close());
}, 60_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
});

function appUrl(user: 'postgres' | 'app'): string {
  return `postgres://${user}:${encodeURIComponent(primary.password)}@127.0.0.1:${app.port}/${database}`;
}

interface Instance {
  store: PostgresStore;
  alarms: StoreAlarm[];
  records: TrackedSession[];
}

async function instance(user: 'postgres' | 'app'): Promise<Instance> {
  const store = new PostgresStore({ pool: connect(appUrl(user)), prefix: uniquePrefix(user) });
  await store.migrate();
  const alarms: StoreAlarm[] = [];
  store.onAlarm((alarm) => alarms.push(alarm));
  const records = Array.from({ length: 20 }, () =>
    trackedSession({ state: 'delivering', result: storedResult() }),
  );
  for (const record of records) await store.insert({ record, now: 1_000 });
  return { store, alarms, records };
}

/** A transactional handler's delivery: its write and the recorded success commit together. */
async function deliver(store: PostgresStore, records: TrackedSession[]): Promise<void> {
  for (const { key } of records) {
    await store.lease({ key, owner: 'w', now: 2_000, leaseMs: 60_000 });
    const outcome = await store.settleWith(
      { key, owner: 'w', now: 2_000, update: { state: 'completed', retainMs: 3_600_000 } },
      (client) => client.query('INSERT INTO effects (key) VALUES ($1)', [key]),
    );
    if (!outcome.settled) throw new Error(`${key} was not settled`);
  }
}

async function states(store: PostgresStore, records: TrackedSession[]) {
  const counts: Record<string, number> = {};
  for (const { key } of records) {
    const state = (await store.get({ key, now: 2_000 }))?.state ?? 'missing';
    counts[state] = (counts[state] ?? 0) + 1;
  }
  return counts;
}

async function lsn(pool: pg.Pool, expression: string): Promise<bigint> {
  const { rows } = await pool.query(`SELECT (${expression} - '0/0'::pg_lsn)::text AS n`);
  return BigInt(rows[0].n);
}

describe('PostgreSQL promoted while its replica was behind', () => {
  it('raises store_rewound (lost, or may have been lost without the history); transactional effects stay once', async () => {
    const owner = await instance('postgres');
    const tenant = await instance('app');
    const direct = connect(primary.url(database));
    const replicaPool = connect(replica.url(database));
    const [ownerKept, ownerLost] = [owner.records.slice(0, 12), owner.records.slice(12)];
    const [appKept, appLost] = [tenant.records.slice(0, 12), tenant.records.slice(12)];

    await deliver(owner.store, ownerKept);
    await deliver(tenant.store, appKept);
    const flushed = await lsn(direct, 'pg_current_wal_lsn()');
    await waitFor(
      async () => (await lsn(replicaPool, 'pg_last_wal_replay_lsn()')) >= flushed,
      'the replica to replay everything so far',
    );
    streaming.hold();
    // Committed and acknowledged on the primary; the replica never receives them.
    await deliver(owner.store, ownerLost);
    await deliver(tenant.store, appLost);
    await streaming.close();
    await primary.stop({ remove: false });
    await replicaPool.query('SELECT pg_promote(true, 60)');
    app.retarget(replica.port);

    // A sweep looks at the timeline (`now` past the check interval).
    for (const { store } of [owner, tenant]) {
      await waitFor(async () => {
        try {
          await store.leaseDue({ owner: 'sweep', now: 60_000, leaseMs: 1, limit: 0 });
          return true;
        } catch {
          return false;
        }
      }, 'the store to answer on the promoted replica');
    }
    await waitFor(() => owner.alarms.length > 0 && tenant.alarms.length > 0, 'both alarms');
    expect(owner.alarms.map((alarm) => alarm.code)).toEqual(['store_rewound']);
    expect(owner.alarms[0]!.message).toMatch(/failed over from timeline 1 to 2 at WAL position/);
    expect(owner.alarms[0]!.message).toContain('they were lost');
    expect(tenant.alarms.map((alarm) => alarm.code)).toEqual(['store_rewound']);
    expect(tenant.alarms[0]!.message).toMatch(/failed over \(timeline 1 → 2\)/);
    expect(tenant.alarms[0]!.message).toContain('cannot be told here');
    expect(tenant.alarms[0]!.message).toContain('pg_read_server_files');

    // The lost successes are due again; their transactional effects were lost with them, so
    // redelivering them makes each effect exactly once.
    expect(await states(owner.store, owner.records)).toEqual({ completed: 12, delivering: 8 });
    expect(await states(tenant.store, tenant.records)).toEqual({ completed: 12, delivering: 8 });
    const newPrimary = connect(replica.url(database));
    const effects = async () =>
      (await newPrimary.query('SELECT key FROM effects ORDER BY key')).rows.map((r) => r.key);
    expect(await effects()).toEqual([...ownerKept, ...appKept].map((r) => r.key).sort());
    await deliver(owner.store, ownerLost);
    await deliver(tenant.store, appLost);
    expect(await effects()).toEqual([...owner.records, ...tenant.records].map((r) => r.key).sort());
    expect(owner.alarms).toHaveLength(1);

    // What the store reads of synchronous replication: off here, on once configured.
    expect(await owner.store.replication()).toEqual({
      synchronousCommit: 'off',
      synchronousStandbyNames: '',
      synchronous: false,
    });
    await newPrimary.query(`ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 (replica1)'`);
    await newPrimary.query('SELECT pg_reload_conf()');
    const durable = new PostgresStore({
      pool: connect(appUrl('app'), { options: '-c synchronous_commit=remote_apply' }),
    });
    await waitFor(
      async () => (await durable.replication()).synchronous,
      'the reloaded settings to be read',
    );
    expect(await durable.replication()).toEqual({
      synchronousCommit: 'remote_apply',
      synchronousStandbyNames: 'FIRST 1 (replica1)',
      synchronous: true,
    });
  }, 60_000);
});
