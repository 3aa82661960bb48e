import { PostgresStore } from '@faceverify/postgres';
import { RedisStore } from '@faceverify/redis';
import { startPostgresServer, startRedisServer } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../src/random.js';
import { REAL_STORE_REGRESSIONS } from '../src/regressions.js';
import { generateSchedule } from '../src/schedule.js';
import { simulate } from '../src/simulate.js';
import { redisWithReplica } from './support/redis-replica.js';

// The slower mode: the same runs against real servers, time held still while they answer.
// Fewer seeds than the model runs, and sweeps every 30 s instead of 5 (each a few round trips);
// `FACEVERIFY_SIMULATION_REAL_SEEDS` runs more.
const SEEDS = Number(process.env.FACEVERIFY_SIMULATION_REAL_SEEDS ?? 2);
const MINUTE = 60_000;

async function runSeeds(open: (seed: number) => Promise<{ store: RedisStore | PostgresStore }>) {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const { store } = await open(seed);
    const schedule = {
      ...generateSchedule(seededRandom(seed), { storeLoss: false }),
      settleMs: 120 * MINUTE,
      receiver: { sweepIntervalMs: 30_000 },
    };
    const report = await simulate(seed, schedule, { store });
    expect(report.violations, [...report.violations, ...report.schedule].join('\n')).toEqual([]);
    if (report.stats.sessions > 0) expect(report.stats.delivered).toBeGreaterThan(0);
  }
}

describe('the simulation on real stores', () => {
  it(`RedisStore keeps every promise on ${SEEDS} seeds`, async () => {
    const server = await startRedisServer();
    const redis = new Redis(server.url, { maxRetriesPerRequest: 2 });
    redis.on('error', () => undefined);
    try {
      await runSeeds(async (seed) => ({ store: new RedisStore({ redis, prefix: `sim${seed}:` }) }));
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });

  it(`PostgresStore keeps every promise on ${SEEDS} seeds`, async () => {
    const server = await startPostgresServer();
    const pool = new pg.Pool({ connectionString: server.url(await server.createDatabase()) });
    pool.on('error', () => undefined);
    try {
      await runSeeds(async (seed) => {
        const store = new PostgresStore({ pool, prefix: `sim${seed}_` });
        await store.migrate();
        return { store };
      });
    } finally {
      await pool.end();
      await server.stop();
    }
  });
});

describe('cases only a real store can keep, on real servers', () => {
  it('a failover that lost successes is told: RedisStore counts what Redis lost', async () => {
    const servers = await redisWithReplica();
    const redis = new Redis(servers.url, { maxRetriesPerRequest: 2 });
    redis.on('error', () => undefined);
    try {
      const store = new RedisStore({ redis, prefix: 'failover:' });
      const schedule = {
        ...REAL_STORE_REGRESSIONS['a failover that lost successes is told']!,
        settleMs: 30 * MINUTE,
      };
      const report = await simulate(0, schedule, { store, failover: servers.failover });
      const explained = [...report.violations, ...report.trace].join('\n');
      expect(report.violations, explained).toEqual([]);
      // Alice's success was in the writes the replica lacked: it is delivered again, and told.
      expect(report.trace.some((line) => /\(\d+ bytes of writes lost\)/.test(line))).toBe(true);
      expect(report.trace.filter((line) => line.includes('alert store_rewound'))).toHaveLength(1);
      expect(report.stats.delivered).toBe(2);
    } finally {
      redis.disconnect();
      await servers.stop();
    }
  });
});
