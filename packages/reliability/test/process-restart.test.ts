import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createReceiver } from '@faceverify/core';
import { startEmulator } from '@faceverify/emulator';
import { RedisStore } from '@faceverify/redis';
import { freePort, startRedisServer, waitFor } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { everyRecordClosed } from './support/every-record-closed.js';
import { startReceiverProcess } from './support/receiver-processes.js';
import { inBatches } from './support/redis-instances.js';

const BUILT = fileURLToPath(new URL('../../redis/dist/index.js', import.meta.url));

it('a receiver process killed (SIGKILL) and restarted mid-run loses nothing', async () => {
  // The process runs the built packages; `pnpm test` builds them first.
  expect(existsSync(BUILT), 'run `pnpm build` first: the receiver process uses dist/').toBe(true);
  const redisServer = await startRedisServer({ args: ['--appendonly', 'yes'] });
  const emulator = await startEmulator({
    seed: 'process-restart',
    rateLimits: { verify: { limit: 100_000 }, complete: { limit: 100_000 } },
    faults: { dropWebhooks: 0.3 },
  });
  const redis = new Redis(redisServer.url);
  const port = await freePort();
  const prefix = 'fvp:';
  const env = {
    REDIS_URL: redisServer.url,
    STORE_PREFIX: prefix,
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_BASE_URL: emulator.url,
    PORT: String(port),
  };
  // Sessions are started by another instance (an API server) sharing the store.
  const store = new RedisStore({ redis, prefix });
  const starter = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url, createSessionsPerMinute: 100_000 },
    store,
    pollScheduleMs: [150, 150, 300],
  });
  emulator.setCallbackUrl(`http://127.0.0.1:${port}/webhooks/verification`);
  let receiver = await startReceiverProcess(env);
  const killedPid = receiver.child.pid;
  try {
    const tokens: string[] = [];
    for (let i = 0; i < 150; i++) {
      tokens.push((await starter.startVerification({ externalUserId: `p${i}` })).token);
    }
    await inBatches(tokens.slice(0, 75), 10, (token) =>
      emulator.completeSession(token, 'verified'),
    );
    await receiver.kill('SIGKILL');
    // While no receiver runs, webhooks fail at the connection.
    await inBatches(tokens.slice(75), 10, (token) => emulator.completeSession(token, 'verified'));
    await emulator.webhooksSettled();
    receiver = await startReceiverProcess(env);

    const ledger = async () =>
      (await redis.lrange(`${prefix}ledger`, 0, -1)).map(
        (line) => JSON.parse(line) as { token: string; source: string; pid: number },
      );
    await waitFor(
      async () => new Set((await ledger()).map((entry) => entry.token)).size === tokens.length,
      'every session delivered',
    );
    await everyRecordClosed(store, starter);
    const entries = await ledger();
    expect(new Set(entries.map((entry) => entry.token))).toEqual(new Set(tokens));
    expect(emulator.stats().webhooks.failed).toBeGreaterThan(0);
    // Exactly once after success. A handler that was running when its process was killed
    // never recorded its success, so it may run once more: only such tokens may repeat.
    const byToken = new Map<string, number[]>();
    for (const entry of entries)
      byToken.set(entry.token, [...(byToken.get(entry.token) ?? []), entry.pid]);
    const repeated = [...byToken].filter(([, pids]) => pids.length > 1);
    for (const [, pids] of repeated) {
      expect(pids).toHaveLength(2);
      expect(pids[0]).toBe(killedPid);
      expect(pids[1]).toBe(receiver.child.pid);
    }
    // At most the handlers in flight at the kill: 4 sweep workers and 10 webhook requests.
    expect(repeated.length).toBeLessThanOrEqual(14);
  } finally {
    await receiver.kill('SIGTERM');
    redis.disconnect();
    await emulator.close();
    await redisServer.stop();
  }
});
