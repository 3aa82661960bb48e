import { PostgresStore } from '@faceverify/postgres';
import { RedisStore } from '@faceverify/redis';
import { startPostgresServer, startRedisServer } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../src/random.js';
import { generateSchedule } from '../src/schedule.js';
import { simulate } from '../src/simulate.js';

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
