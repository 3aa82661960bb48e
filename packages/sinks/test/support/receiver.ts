import {
  createReceiver,
  type Receiver,
  type ReceiverOptions,
  type SweepReport,
  type VerificationCompletedEvent,
} from '@faceverify/core';
import { createTestClock, fixturePayload, signedDelivery } from '@faceverify/core/testing';

const SECRET = 'whsec_sinks_test_7c1e';

/** The image link every test result carries: a message must not, unless asked to. */
export const IMAGE_URL = 'https://files.example.test/front/sinks.jpg?sig=secret-signature';

/** A Receiver on a test clock, with what the sink tests do to it. */
export interface SinkReceiver<Transaction = never> {
  receiver: Receiver<Transaction>;
  /**
   * Receives a signed result of `userId`; resolves with the HTTP status answered: 200
   * delivered, 500 when a handler failed (the result is stored and retried).
   */
  deliver(userId: string): Promise<number>;
  /** Lets `ms` pass on the test clock, then sweeps: due retries run. */
  retryAfter(ms: number): Promise<SweepReport>;
  /** The ids of every event the handlers were given, in order. */
  seen: string[];
}

export function sinkReceiver<Transaction = never>(
  options: Partial<ReceiverOptions> = {},
): SinkReceiver<Transaction> {
  const clock = createTestClock();
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    clock,
    ...options,
  } as ReceiverOptions) as unknown as Receiver<Transaction>;
  const seen: string[] = [];
  receiver.on('verification.completed', (event) => {
    seen.push(event.id);
  });
  return {
    receiver,
    seen,
    async deliver(userId) {
      const payload = fixturePayload({ external_user_id: userId, frontImageUrl: IMAGE_URL });
      return (await receiver.receive(await signedDelivery(payload, { secret: SECRET }))).status;
    },
    async retryAfter(ms) {
      await clock.advance(ms);
      return receiver.sweep();
    },
  };
}

/**
 * A handler registered after a sink that fails the first run of each event: the sink
 * succeeded, yet the delivery is retried and the sink runs again for the same event.
 */
export function failsFirstRun(): (event: VerificationCompletedEvent) => void {
  const failed = new Set<string>();
  return (event) => {
    if (failed.has(event.id)) return;
    failed.add(event.id);
    throw new Error('a later handler failed once');
  };
}

/** Counts of each id in `ids`: how many were delivered, and how many more than once. */
export function tally(ids: readonly string[]): { distinct: number; duplicates: number } {
  const distinct = new Set(ids).size;
  return { distinct, duplicates: ids.length - distinct };
}
