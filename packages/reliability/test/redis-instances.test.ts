import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Emulator, OUTCOMES, startEmulator } from '@faceverify/emulator';
import { atDepth, type RedisServer, startRedisServer, waitFor } from '@faceverify/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryLedger } from './support/delivery-ledger.js';
import { everyRecordClosed } from './support/every-record-closed.js';
import { inBatches, type ReceiverInstance, startRedisInstance } from './support/redis-instances.js';
import { startRoundRobinProxy } from './support/round-robin-proxy.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const GENEROUS = {
  verify: { limit: 100_000, windowMs: 60_000 },
  complete: { limit: 100_000, windowMs: 60_000 },
};

async function emulatorWith(faults: Parameters<Emulator['setFaults']>[0]) {
  const emulator = await startEmulator({ seed: 'redis-instances', rateLimits: GENEROUS, faults });
  cleanups.push(() => emulator.close());
  return emulator;
}

async function redisServer(args: string[] = [], dir?: string): Promise<RedisServer> {
  const server = await startRedisServer({ args, ...(dir ? { dir } : {}) });
  cleanups.push(() => server.stop());
  return server;
}

// `pnpm test:deep` (before a release) runs 1,000 sessions; `pnpm test` and CI 200, which meet
// every fault and finish within the test's time on a loaded two-core machine.
const SESSIONS = atDepth({ standard: 200, deep: 1_000 });
// Half the counts the probabilities below give on average (20% dropped, 5% duplicated).
const DROPPED_AT_LEAST = SESSIONS / 10;
const DUPLICATED_AT_LEAST = SESSIONS / 40;

describe('several instances on one Redis', () => {
  it(`three instances, ${SESSIONS} sessions, faults on: each delivered exactly once`, async () => {
    const redis = await redisServer();
    // Each fault hits its first events for certain (`next`), then at random: the run always
    // exercises every one of them, whatever order the instances' requests arrive in.
    const emulator = await emulatorWith({
      dropWebhooks: { next: DROPPED_AT_LEAST, probability: 0.2 },
      duplicateWebhooks: { next: DUPLICATED_AT_LEAST, probability: 0.05 },
      corruptWebhooks: { next: 1, probability: 0.02 },
      delayWebhooks: { ms: 200, next: 1, probability: 0.1 },
      poll429: { next: 1, probability: 0.1, retryAfterMs: 50 },
      poll5xx: { next: 1, probability: 0.05 },
    });
    const ledger = new DeliveryLedger();
    const instances: ReceiverInstance[] = [];
    for (let i = 0; i < 3; i++) {
      const instance = await startRedisInstance({
        emulator,
        redisUrl: redis.url,
        prefix: 'fv3:',
        ledger,
      });
      instances.push(instance);
      cleanups.push(() => instance.stop());
    }
    const proxy = await startRoundRobinProxy(() => instances.map((i) => i.server.url));
    cleanups.push(() => proxy.close());
    emulator.setCallbackUrl(`${proxy.url}/webhooks/verification`);

    const tokens: string[] = [];
    await inBatches(
      Array.from({ length: SESSIONS }, (_, i) => i),
      20,
      async (i) => {
        const instance = instances[i % instances.length]!;
        const { token } = await instance.receiver.startVerification({ externalUserId: `u${i}` });
        tokens.push(token);
      },
    );
    await inBatches([...tokens], 20, (token) =>
      emulator.completeSession(token, OUTCOMES[tokens.indexOf(token) % OUTCOMES.length]!),
    );
    await waitFor(() => ledger.missing(tokens).length === 0, 'every session delivered');
    await emulator.webhooksSettled();
    await everyRecordClosed(instances[0]!.store, instances[0]!.receiver);

    const stats = emulator.stats();
    // The faults did happen, at least as often as their certain first hits.
    expect(stats.webhooks.dropped).toBeGreaterThanOrEqual(DROPPED_AT_LEAST);
    expect(stats.webhooks.duplicated).toBeGreaterThanOrEqual(DUPLICATED_AT_LEAST);
    expect(stats.pollFaults.rateLimited).toBeGreaterThan(0);
    expect(stats.pollFaults.serverErrors).toBeGreaterThan(0);
    expect(ledger.duplicates()).toEqual([]);
    expect(ledger.completed).toHaveLength(SESSIONS);
    // Dropped webhooks' results can only come by polling. Which path delivers the others is a
    // race the machine's load decides (a session is polled every 300 ms), so the webhooks are
    // held to having been answered, each as delivered or as a duplicate of a polled result.
    expect(ledger.completed.some((event) => event.source === 'poll')).toBe(true);
    expect(stats.webhooks.delivered).toBeGreaterThan(0);
  });

  it('Redis restarted mid-run (appendonly yes): the receiver reconnects and nothing is lost', async () => {
    // A directory of the test's own, so the data outlives the first server process.
    const dir = mkdtempSync(join(tmpdir(), 'faceverify-restart-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const redis = await redisServer(['--appendonly', 'yes', '--appendfsync', 'always'], dir);
    const emulator = await emulatorWith({});
    const ledger = new DeliveryLedger();
    const instance = await startRedisInstance({
      emulator,
      redisUrl: redis.url,
      prefix: 'fvr:',
      ledger,
    });
    cleanups.push(() => instance.stop());
    emulator.setCallbackUrl(instance.server.webhookUrl);

    const tokens: string[] = [];
    for (let i = 0; i < 60; i++) {
      tokens.push((await instance.receiver.startVerification({ externalUserId: `r${i}` })).token);
    }
    await inBatches(tokens.slice(0, 30), 10, (token) =>
      emulator.completeSession(token, 'verified'),
    );
    await waitFor(() => ledger.missing(tokens.slice(0, 30)).length === 0, 'first half delivered');

    await redis.stop();
    // While Redis is down, webhooks cannot be stored: they are refused (503), not lost for good.
    await inBatches(tokens.slice(30), 10, (token) => emulator.completeSession(token, 'verified'));
    await emulator.webhooksSettled();
    expect(emulator.stats().webhooks.failed).toBeGreaterThan(0);
    const restarted = await startRedisServer({
      port: redis.port,
      dir: redis.dir,
      args: ['--appendonly', 'yes'],
    });
    cleanups.push(() => restarted.stop());

    await waitFor(() => ledger.missing(tokens).length === 0, 'second half delivered by polling');
    await emulator.webhooksSettled();
    await everyRecordClosed(instance.store, instance.receiver);
    expect(ledger.duplicates()).toEqual([]);
    expect(ledger.completed).toHaveLength(60);
  });
});
