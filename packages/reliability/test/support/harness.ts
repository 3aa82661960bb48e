import { createReceiver, MemoryStore, type Receiver, type ReceiverOptions } from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import { type EmulatorOptions, type FaultSettings, startEmulator } from '@faceverify/emulator';
import { DeliveryLedger } from './delivery-ledger.js';
import { type ReceiverServer, startReceiverServer } from './receiver-server.js';

/** Limits of the emulator raised so that tests are about faults, not about pacing. */
const GENEROUS_LIMITS = {
  verify: { limit: 100_000, windowMs: 60_000 },
  complete: { limit: 100_000, windowMs: 60_000 },
};

/** Receiver timings shortened from minutes to milliseconds, keeping their shape. */
export const FAST_TIMINGS: ReceiverOptions = {
  pollScheduleMs: [150, 150, 300],
  retryScheduleMs: [100, 200],
  sessionLifetimeMs: 60_000,
  sweepIntervalMs: 50,
  sweepBatchSize: 200,
  sweepConcurrency: 8,
  leaseMs: 5_000,
};

export interface HarnessOptions {
  faults?: FaultSettings;
  store?: Store;
  receiver?: ReceiverOptions;
  emulator?: EmulatorOptions;
}

/**
 * The emulator as the service, one receiving Express app with a Receiver on a store, and
 * a ledger of every handler call.
 */
export async function startHarness(options: HarnessOptions = {}) {
  const emulator = await startEmulator({
    seed: 'reliability',
    rateLimits: GENEROUS_LIMITS,
    ...options.emulator,
    ...(options.faults ? { faults: options.faults } : {}),
  });
  const ledger = new DeliveryLedger();
  const store = options.store ?? new MemoryStore();
  const receiver: Receiver = createReceiver({
    secret: emulator.signingSecret,
    client: {
      apiKey: emulator.apiKey,
      baseUrl: emulator.url,
      createSessionsPerMinute: 100_000,
      maxRetries: 2,
    },
    store,
    ...FAST_TIMINGS,
    ...options.receiver,
  });
  receiver.on('verification.completed', ledger.recordCompleted);
  receiver.on('verification.expired', ledger.recordExpired);
  const server: ReceiverServer = await startReceiverServer(receiver);
  emulator.setCallbackUrl(server.webhookUrl);
  return {
    emulator,
    receiver,
    store,
    ledger,
    server,
    async close() {
      await receiver.stop();
      await server.close();
      await emulator.close();
    },
  };
}
