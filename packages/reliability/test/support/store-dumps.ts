import { execFile } from 'node:child_process';
import { inspect, promisify } from 'node:util';
import type { PGlite } from '@electric-sql/pglite';
import { MemoryStore } from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import { PostgresStore } from '@faceverify/postgres';
import { PGliteStore } from '@faceverify/postgres/pglite';
import { RedisStore } from '@faceverify/redis';
import { type PostgresServer, type RedisServer, startRedisServer } from '@faceverify/test-support';
import { CLUSTER_MODE, clusterOfOne } from '@faceverify/test-support/redis-cluster';
import { type Cluster, Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { startStoreServers } from './store-servers.js';

const run = promisify(execFile);

/** A kind of store, and everything it holds as text, as a backup or a replica would have it. */
export interface StoreKind {
  name: string;
  /** A short name for keys and table prefixes: letters, digits and `_`. */
  id: string;
  make(prefix: string): Promise<Store>;
  dump(store: Store, prefix: string): Promise<string>;
}

/** The servers and clients the kinds use, read when a test runs (after `beforeAll`). */
export interface DumpedServers {
  redis: Redis;
  /** A Redis Cluster of one node, through ioredis' Cluster client. */
  cluster: Cluster;
  /** A plain connection to that node, to dump it. */
  clusterNode: Redis;
  pool: pg.Pool;
  postgres: PostgresServer;
  pglite: PGlite;
}

/**
 * Every kind, with the servers they need started before the file's tests and stopped after
 * them: Redis (alone and as a Cluster), PostgreSQL and PGlite.
 */
export function useStoreKinds(): StoreKind[] {
  let servers: DumpedServers | undefined;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const [started, clusterServer] = await Promise.all([
      startStoreServers(),
      startRedisServer(CLUSTER_MODE),
    ]);
    const cluster = await clusterOfOne(clusterServer);
    const connect = (server: RedisServer) => new Redis(server.url, { maxRetriesPerRequest: 2 });
    const pool = new pg.Pool({ connectionString: started.postgres.url() });
    pool.on('error', () => undefined);
    servers = {
      redis: connect(started.redis),
      cluster,
      clusterNode: connect(clusterServer),
      pool,
      postgres: started.postgres,
      pglite: started.pglite,
    };
    const { redis, clusterNode } = servers;
    stop = async () => {
      for (const client of [redis, cluster, clusterNode]) client.disconnect();
      await pool.end();
      await Promise.all([started.stop(), clusterServer.stop()]);
    };
  });
  afterAll(() => stop?.());
  return storeKinds(() => {
    if (!servers) throw new Error('the store servers did not start');
    return servers;
  });
}

/** Every key under `prefix`: its name, its DUMP bytes, and its value read as text. */
async function dumpRedis(redis: Redis, prefix: string): Promise<string> {
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      parts.push(key);
      const dumped = await redis.dumpBuffer(key);
      if (dumped) parts.push(dumped.toString('latin1'));
      const type = await redis.type(key);
      if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      if (type === 'zset') parts.push((await redis.zrange(key, 0, -1, 'WITHSCORES')).join(' '));
      if (type === 'set') parts.push((await redis.smembers(key)).join(' '));
      if (type === 'string') parts.push((await redis.get(key)) ?? '');
      if (type === 'list') parts.push((await redis.lrange(key, 0, -1)).join(' '));
    }
  } while (cursor !== '0');
  expect(parts.length).toBeGreaterThan(0);
  return parts.join('\n');
}

/** Every row of every table named with `prefix`, as JSON text. */
async function dumpTables(
  query: (sql: string) => Promise<{ rows: Record<string, unknown>[] }>,
  prefix: string,
): Promise<string> {
  const { rows: tables } = await query(
    `SELECT table_name FROM information_schema.tables WHERE table_name LIKE '${prefix}%'`,
  );
  expect(tables.length).toBeGreaterThan(0);
  const parts: string[] = [];
  for (const { table_name: table } of tables) {
    const { rows } = await query(`SELECT row_to_json(t)::text AS row FROM "${table}" t`);
    parts.push(String(table), ...rows.map((row) => String(row.row)));
  }
  return parts.join('\n');
}

/**
 * MemoryStore, RedisStore (alone and on a Cluster), PostgresStore and PGliteStore, each with a
 * dump of all it holds.
 */
export function storeKinds(servers: () => DumpedServers): StoreKind[] {
  return [
    {
      name: 'MemoryStore',
      id: 'memory',
      make: async () => new MemoryStore(),
      // Its whole internal state, private fields included.
      dump: async (store) =>
        inspect(store, {
          depth: Number.POSITIVE_INFINITY,
          maxArrayLength: null,
          maxStringLength: null,
        }),
    },
    {
      name: 'RedisStore',
      id: 'redis',
      make: async (prefix) => new RedisStore({ redis: servers().redis, prefix: `${prefix}:` }),
      dump: async (_store, prefix) => dumpRedis(servers().redis, `${prefix}:`),
    },
    {
      // Every key under one hash tag: in one slot, as a Cluster deployment's prefix must be.
      name: 'RedisStore on a Cluster',
      id: 'redis_cluster',
      make: async (prefix) => new RedisStore({ redis: servers().cluster, prefix: `{${prefix}}:` }),
      dump: async (_store, prefix) => dumpRedis(servers().clusterNode, `{${prefix}}:`),
    },
    {
      name: 'PostgresStore',
      id: 'postgres',
      make: async (prefix) => {
        const store = new PostgresStore({ pool: servers().pool, prefix: `${prefix}_` });
        await store.migrate();
        return store;
      },
      // pg_dump, as a backup is taken, and every row as text besides.
      dump: async (_store, prefix) => {
        const { postgres, pool } = servers();
        const { stdout } = await run(
          'pg_dump',
          ['--data-only', `--table=${prefix}_*`, postgres.url()],
          { maxBuffer: 64 * 1024 * 1024 },
        );
        expect(stdout).toContain(`${prefix}_sessions`);
        return `${stdout}\n${await dumpTables((sql) => pool.query(sql), prefix)}`;
      },
    },
    {
      name: 'PGliteStore',
      id: 'pglite',
      make: async (prefix) => {
        const store = new PGliteStore({ db: servers().pglite, prefix: `${prefix}_` });
        await store.migrate();
        return store;
      },
      dump: async (_store, prefix) =>
        dumpTables((sql) => servers().pglite.query<Record<string, unknown>>(sql), prefix),
    },
  ];
}
