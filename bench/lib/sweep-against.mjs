// bench/tracker.bench.mjs --against: one receiver.sweep() at another revision of this
// repository and at this checkout, round by round in one process, so that both are measured
// under the same load. The other revision sweeps as its own tracker bench did before sealing:
// no token keys, its due sessions in clear; this checkout sweeps as its tracker bench does
// now: two token keys, the due sessions sealed as a Receiver writes them.
import { pathToFileURL } from 'node:url';
import { startPostgresServer, startRedisServer } from '@faceverify/test-support/servers';
import { Redis } from 'ioredis';
import pg from 'pg';
import { median } from '../harness.mjs';

/** The goal of issue 45: a sweep per due session within this factor of the revision before sealing. */
export const AGAINST_FACTOR = 1.5;

const distOf = (root, name) => import(pathToFileURL(`${root}/packages/${name}/dist/index.js`).href);

/**
 * A store of `name` from the packages under `root`, on a server of `servers`, and how to let it
 * go. Each side has a Redis database and PostgreSQL tables of its own.
 */
async function storeAt(root, name, side, servers) {
  if (name === 'memory') {
    return { store: new (await distOf(root, 'core')).MemoryStore(), close: async () => undefined };
  }
  if (name === 'redis') {
    const { RedisStore } = await distOf(root, 'redis');
    const redis = new Redis(servers.redis.url, { db: side === 'before' ? 2 : 3 });
    return { store: new RedisStore({ redis }), close: () => redis.quit() };
  }
  const { PostgresStore } = await distOf(root, 'postgres');
  const pool = new pg.Pool({ connectionString: servers.postgres.url(), max: 10 });
  pool.on('error', () => undefined);
  const store = new PostgresStore({ pool, prefix: `against_${side}_` });
  await store.migrate();
  return { store, close: () => pool.end() };
}

/**
 * Each of `stores` (memory, redis, postgres) at `root` (before) and at this checkout (after):
 * `tracked` sessions, `due` of them due, `rounds` sweeps per side, the sides alternating which
 * goes first. `bench` gives the tracker bench's own sessions and Receiver settings.
 */
export async function measureAgainst({ root, stores, tracked, due, rounds, bench }) {
  const servers = {
    redis: stores.includes('redis') ? await startRedisServer() : undefined,
    postgres: stores.includes('postgres') ? await startPostgresServer() : undefined,
  };
  const rows = [];
  try {
    for (const name of stores) {
      const sides = {};
      for (const [side, at, core] of [
        ['before', root, await distOf(root, 'core')],
        ['after', undefined, bench.core],
      ]) {
        const { store, close } = await storeAt(at ?? bench.root, name, side, servers);
        const receiver = core.createReceiver({
          secret: bench.secret,
          client: false,
          store,
          sweepBatchSize: due,
          sweepConcurrency: bench.concurrency,
          ...(side === 'after' ? { tokenKeys: bench.tokenKeys } : {}),
        });
        receiver.on('verification.completed', () => undefined);
        const now = Date.now();
        await bench.inChunks(tracked - due, 2000, (i) =>
          store.insert({ record: bench.pendingSession(i, now), now }),
        );
        const sweepOnce = async (round) => {
          const at = Date.now();
          const sessions =
            side === 'after'
              ? await bench.sealedDue(round, due, at)
              : Array.from({ length: due }, (_, i) => bench.dueSession(round, i, at));
          await bench.inChunks(due, 500, (i) => store.insert({ record: sessions[i], now: at }));
          const start = performance.now();
          const { delivered } = await receiver.sweep();
          const ms = performance.now() - start;
          if (delivered !== due)
            throw new Error(`${name} ${side}: delivered ${delivered} of ${due}`);
          return ms;
        };
        sides[side] = { sweepOnce, close, ms: [] };
      }
      // One round first on each side, untimed: code loaded, statements and scripts known.
      for (let round = 0; round <= rounds; round++) {
        const order = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
        for (const side of order) {
          const ms = await sides[side].sweepOnce(round);
          if (round > 0) sides[side].ms.push(ms);
        }
      }
      await sides.before.close();
      await sides.after.close();
      const ratios = sides.after.ms.map((ms, i) => ms / sides.before.ms[i]);
      const row = {
        store: name,
        tracked,
        due,
        beforeMs: Number(median(sides.before.ms).toFixed(2)),
        afterMs: Number(median(sides.after.ms).toFixed(2)),
        ratio: Number(median(ratios).toFixed(2)),
        ratios: ratios.map((ratio) => Number(ratio.toFixed(2))),
      };
      console.log(
        `  ${name.padEnd(8)} before ${row.beforeMs} ms, after ${row.afterMs} ms (${((row.afterMs * 1000) / due).toFixed(1)} µs per due session); after / before ${row.ratio} (rounds ${row.ratios.join(' ')})`,
      );
      rows.push(row);
    }
  } finally {
    await servers.redis?.stop();
    await servers.postgres?.stop();
  }
  return rows;
}
