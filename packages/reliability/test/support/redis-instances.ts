import { createReceiver, type Receiver, type ReceiverOptions } from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import type { Emulator } from '@faceverify/emulator';
import { RedisStore } from '@faceverify/redis';
import { Redis } from 'ioredis';
import type { DeliveryLedger } from './delivery-ledger.js';
import { FAST_TIMINGS } from './harness.js';
import { type ReceiverServer, startReceiverServer } from './receiver-server.js';

/** One receiver instance as deployed: its own Redis connection, store, app and timer. */
export interface ReceiverInstance {
  receiver: Receiver;
  server: ReceiverServer;
  redis: Redis;
  store: Store;
  stop(): Promise<void>;
}

export async function startRedisInstance(options: {
  emulator: Emulator;
  redisUrl: string;
  prefix: string;
  ledger: DeliveryLedger;
  receiver?: ReceiverOptions;
}): Promise<ReceiverInstance> {
  // Fail fast during an outage instead of queueing commands for seconds (see the redis README).
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 2 });
  redis.on('error', () => {});
  const store = new RedisStore({ redis, prefix: options.prefix });
  const receiver = createReceiver({
    secret: options.emulator.signingSecret,
    client: {
      apiKey: options.emulator.apiKey,
      baseUrl: options.emulator.url,
      createSessionsPerMinute: 100_000,
      maxRetries: 2,
    },
    store,
    ...FAST_TIMINGS,
    ...options.receiver,
  });
  receiver.on('verification.completed', options.ledger.recordCompleted);
  receiver.on('verification.expired', options.ledger.recordExpired);
  const server = await startReceiverServer(receiver);
  receiver.start();
  return {
    receiver,
    server,
    redis,
    store,
    async stop() {
      await receiver.stop();
      await server.close();
      redis.disconnect();
    },
  };
}

/** Runs `task` over `items` with at most `limit` in flight. */
export async function inBatches<T>(items: T[], limit: number, task: (item: T) => Promise<unknown>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}
