import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReceiver } from '@faceverify/core';
import { startEmulator } from '@faceverify/emulator';
import { RedisStore } from '@faceverify/redis';
import { freePort, type RedisServer, startRedisServer, waitFor } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import { everyRecordClosed } from '../support/every-record-closed.js';
import {
  crashesOf,
  type ReceiverProcess,
  startReceiverProcess,
} from '../support/receiver-processes.js';
import { startRoundRobinProxy } from '../support/round-robin-proxy.js';
import { driveSessions } from './drive-sessions.js';

/** The faults of the soak run, as the issue sets them. */
export const SOAK_FAULTS = {
  dropWebhooks: 0.2,
  duplicateWebhooks: 0.05,
  corruptWebhooks: 0.02,
  delayWebhooks: { ms: 500, probability: 0.1 },
  poll5xx: { probability: 0.05 },
  poll429: { probability: 0.05, retryAfterMs: 200 },
} as const;

export interface SoakReport {
  sessions: number;
  ratePerSecond: number;
  started: number;
  completed: number;
  deliveredOnce: number;
  deliveredTwice: number;
  /** Sessions delivered three times or more: never allowed. */
  deliveredMoreThanTwice: number;
  /** Of those delivered twice, how many were first delivered by the killed process. */
  repeatedAfterKill: number;
  lost: number;
  latencyMs: {
    webhook: { count: number; p50: number; p99: number };
    poll: { count: number; p50: number; p99: number };
  };
  peakRssMiB: number[];
  emulator: ReturnType<Awaited<ReturnType<typeof startEmulator>>['stats']>;
  /** How each receiver process that the soak did not kill ended before the end, if it did. */
  crashed: string[];
  events: string[];
  durationMs: number;
}

interface LedgerEntry {
  token: string;
  source: 'webhook' | 'poll';
  pid: number;
  deliveredAt: number;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The soak: the emulator and three receiver processes on one real Redis, on loopback.
 * Sessions are started and completed at a steady rate while the emulator drops, duplicates,
 * corrupts and delays webhooks and fails polls; one receiver is killed (SIGKILL) and
 * restarted, and Redis is restarted once. Bounded: it stops by itself.
 */
export async function runSoak(options: {
  sessions: number;
  ratePerSecond: number;
}): Promise<SoakReport> {
  const began = Date.now();
  const events: string[] = [];
  const note = (text: string) =>
    events.push(`${((Date.now() - began) / 1000).toFixed(1)}s ${text}`);
  const dir = mkdtempSync(join(tmpdir(), 'faceverify-soak-'));
  const persistent = ['--appendonly', 'yes', '--appendfsync', 'everysec'];
  let redisServer: RedisServer = await startRedisServer({ dir, args: persistent });
  const emulator = await startEmulator({
    seed: 'soak',
    rateLimits: {
      verify: { limit: 1_000_000, windowMs: 60_000 },
      complete: { limit: 1_000_000, windowMs: 60_000 },
    },
    faults: SOAK_FAULTS,
  });
  const prefix = 'soak:';
  const redis = new Redis(redisServer.url, { maxRetriesPerRequest: 2 });
  redis.on('error', () => {});
  const ports = [await freePort(), await freePort(), await freePort()];
  const envFor = (port: number) => ({
    REDIS_URL: redisServer.url,
    STORE_PREFIX: prefix,
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_BASE_URL: emulator.url,
    PORT: String(port),
    POLL_SCHEDULE_MS: '1000,1000,2000',
    SWEEP_INTERVAL_MS: '100',
  });
  const receivers: ReceiverProcess[] = await Promise.all(
    ports.map((port) => startReceiverProcess(envFor(port))),
  );
  // Every process started, so that one which died unseen (not killed) is reported.
  const everyReceiver = [...receivers];
  const killedPids: number[] = [];
  const proxy = await startRoundRobinProxy(() => ports.map((port) => `http://127.0.0.1:${port}`));
  emulator.setCallbackUrl(`${proxy.url}/webhooks/verification`);
  const store = new RedisStore({ redis, prefix });
  // The API server that starts verifications: another instance sharing the store.
  const starter = createReceiver({
    secret: emulator.signingSecret,
    client: {
      apiKey: emulator.apiKey,
      baseUrl: emulator.url,
      createSessionsPerMinute: 1_000_000,
    },
    store,
    pollScheduleMs: [1000, 1000, 2000],
  });

  const started: string[] = [];
  const completedAt = new Map<string, number>();
  const milestones = new Map<number, () => Promise<void>>([
    [
      Math.floor(options.sessions * 0.3),
      async () => {
        killedPids.push(receivers[1]!.child.pid ?? -1);
        await receivers[1]!.kill('SIGKILL');
        note('receiver 2 killed (SIGKILL)');
      },
    ],
    [
      Math.floor(options.sessions * 0.4),
      async () => {
        const previous = receivers[1]!;
        receivers[1] = await startReceiverProcess(envFor(ports[1]!));
        everyReceiver.push(receivers[1]);
        receivers.push(previous); // kept for its peak RSS
        note('receiver 2 restarted');
      },
    ],
    [
      Math.floor(options.sessions * 0.5),
      async () => {
        emulator.setFaults({ ...SOAK_FAULTS, poll429: { next: 200, retryAfterMs: 300 } });
        note('429 storm on polling: the next 200 polls');
      },
    ],
    [
      Math.floor(options.sessions * 0.6),
      async () => {
        await redisServer.stop();
        note('redis stopped');
        await sleep(1500);
        redisServer = await startRedisServer({ port: redisServer.port, dir, args: persistent });
        note('redis restarted');
      },
    ],
  ]);

  try {
    started.push(
      ...(await driveSessions({
        sessions: options.sessions,
        ratePerSecond: options.ratePerSecond,
        starter,
        emulator,
        milestones,
        onCompleted: (token) => completedAt.set(token, Date.now()),
      })),
    );
    note(`all ${started.length} sessions completed at the service`);
    emulator.setFaults({});
    const ledger = async () =>
      (await redis.lrange(`${prefix}ledger`, 0, -1)).map((line) => JSON.parse(line) as LedgerEntry);
    await waitFor(
      async () => new Set((await ledger()).map((entry) => entry.token)).size >= started.length,
      'every started session delivered',
    );
    await everyRecordClosed(store, starter);
    await emulator.webhooksSettled();
    note('drained');

    const entries = await ledger();
    const byToken = new Map<string, LedgerEntry[]>();
    for (const entry of entries)
      byToken.set(entry.token, [...(byToken.get(entry.token) ?? []), entry]);
    const twice = [...byToken.values()].filter((list) => list.length > 1);
    if (process.env.FACEVERIFY_SOAK_DEBUG === '1') {
      for (const list of twice.slice(0, 10)) {
        console.log(
          JSON.stringify(
            list.map((e) => ({
              ...e,
              at: e.deliveredAt - began,
              done: (completedAt.get(e.token) ?? 0) - began,
            })),
          ),
        );
      }
    }
    const latencies = { webhook: [] as number[], poll: [] as number[] };
    for (const [token, list] of byToken) {
      const done = completedAt.get(token);
      const first = list[0]!;
      if (done !== undefined) latencies[first.source].push(Math.max(0, first.deliveredAt - done));
    }
    const summary = (values: number[]) => ({
      count: values.length,
      p50: percentile(values, 50),
      p99: percentile(values, 99),
    });
    return {
      sessions: options.sessions,
      ratePerSecond: options.ratePerSecond,
      started: started.length,
      completed: completedAt.size,
      deliveredOnce: [...byToken.values()].filter((list) => list.length === 1).length,
      deliveredTwice: twice.length,
      deliveredMoreThanTwice: [...byToken.values()].filter((list) => list.length > 2).length,
      repeatedAfterKill: twice.filter((list) => killedPids.includes(list[0]!.pid)).length,
      lost: started.filter((token) => !byToken.has(token)).length,
      latencyMs: { webhook: summary(latencies.webhook), poll: summary(latencies.poll) },
      peakRssMiB: receivers.map((receiver) => Math.round(receiver.peakRss() / 1024 / 1024)),
      emulator: emulator.stats(),
      crashed: crashesOf(everyReceiver),
      events,
      durationMs: Date.now() - began,
    };
  } finally {
    await Promise.all(receivers.map((receiver) => receiver.kill('SIGTERM')));
    await proxy.close();
    redis.disconnect();
    await emulator.close();
    await redisServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
