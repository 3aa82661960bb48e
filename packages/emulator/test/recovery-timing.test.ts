import {
  createClient,
  createReceiver,
  type Receiver,
  type ReceiverTelemetry,
} from '@faceverify/core';
import { createTestClock, type TestClock } from '@faceverify/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DEVELOPMENT_POLL_SCHEDULE_MS } from '../src/cli/banner.js';
import { type Emulator, startEmulator } from '../src/index.js';
import { type ReceiverApp, startReceiverApp } from './support/receiver-app.js';

// What docs/getting-started.md (steps 4 and 5) and the example READMEs say about when a result
// arrives, and by which way, as the Receiver decides it: a pending session is polled once the
// schedule's delay has passed since its start (then since the poll before), at the first sweep
// of `receiver.start()` from then on, every `sweepIntervalMs` (5 s by default); and a return
// page's `confirm()` that comes before the webhook delivers the result itself. The Receiver's
// clock is a test clock, moved a sweep at a time once the sweep before has ended.

const SCHEDULE = DEVELOPMENT_POLL_SCHEDULE_MS.split(',').map(Number);
/** `createReceiver`'s default `sweepIntervalMs`, which the docs name. */
const SWEEP_MS = 5_000;

/** Telemetry that tells when a sweep has ended, and nothing else. */
function sweepSignals(): ReceiverTelemetry & { nextEnd(): Promise<void> } {
  const waiting: Array<() => void> = [];
  return {
    attach: () => undefined,
    async span(name, work) {
      try {
        return await work();
      } finally {
        if (name === 'sweep') {
          for (const resolve of waiting.splice(0)) resolve();
        }
      }
    },
    webhookAnswered: () => undefined,
    delivered: () => undefined,
    handlerRan: () => undefined,
    undeliverable: () => undefined,
    polled: () => undefined,
    rateLimitWaited: () => undefined,
    nextEnd: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
}

interface Delivery {
  user: string;
  source: string;
  /** On the Receiver's clock. */
  at: number;
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Running {
  emulator: Emulator;
  receiver: Receiver;
  clock: TestClock;
  deliveries: Delivery[];
  signals: ReturnType<typeof sweepSignals>;
  app: ReceiverApp;
}

/** The emulator and an app whose Receiver polls on the emulator's development schedule. */
async function start(): Promise<Running> {
  const emulator = await startEmulator({ seed: 'recovery-timing' });
  cleanups.push(() => emulator.close());
  // The service's clock and the Receiver's start together; only the Receiver's is moved.
  const clock = createTestClock(Date.now());
  const signals = sweepSignals();
  const receiver = createReceiver({
    secret: emulator.signingSecret,
    // The client on real time: its requests to the emulator are real, and never outlast a
    // deadline on a clock that the test moves.
    client: createClient({ apiKey: emulator.apiKey, baseUrl: emulator.url }),
    clock,
    telemetry: signals,
    pollScheduleMs: SCHEDULE,
    logger: false,
  });
  cleanups.push(() => receiver.stop());
  const deliveries: Delivery[] = [];
  receiver.on('verification.completed', (event) => {
    deliveries.push({ user: event.data.external_user_id, source: event.source, at: clock.now() });
  });
  const app = await startReceiverApp(() => receiver);
  cleanups.push(() => app.close());
  return { emulator, receiver, clock, deliveries, signals, app };
}

/** Moves the clock by `ms`, onto a sweep's time, and waits until that sweep has ended. */
async function sweepAfter(running: Running, ms: number): Promise<void> {
  const ended = running.signals.nextEnd();
  await running.clock.advance(ms);
  await ended;
}

describe('when a result whose webhook never arrives is delivered', () => {
  it('at the first sweep once its first poll is due: 5 to 10 s after the session started, completed before that', async () => {
    const running = await start();
    const { emulator, receiver, clock, deliveries } = running;
    // No callback URL: no webhook is sent, as if each were dropped.
    receiver.start();
    const sweepsFrom = clock.now();
    const started = new Map<string, number>();
    const begin = async (user: string) => {
      started.set(user, clock.now());
      const { token } = await receiver.startVerification({ externalUserId: user });
      await emulator.completeSession(token, 'verified');
    };
    await begin('at-a-sweep'); // started as a sweep comes round: polled 5 s later
    await clock.advance(1_000);
    await begin('after-a-sweep'); // started 1 s after one: polled at the sweep 9 s later
    await sweepAfter(running, SWEEP_MS - 1_000);
    await sweepAfter(running, SWEEP_MS);

    expect(clock.now() - sweepsFrom).toBe(2 * SWEEP_MS);
    const since = (user: string) => {
      const delivery = deliveries.find((entry) => entry.user === user);
      return (
        delivery && { source: delivery.source, afterStartMs: delivery.at - started.get(user)! }
      );
    };
    expect(since('at-a-sweep')).toEqual({ source: 'poll', afterStartMs: SCHEDULE[0] });
    expect(since('after-a-sweep')).toEqual({ source: 'poll', afterStartMs: 9_000 });
    // The window the docs give: from the first delay to the first delay plus one sweep.
    for (const user of started.keys()) {
      expect(since(user)!.afterStartMs).toBeGreaterThanOrEqual(SCHEDULE[0]!);
      expect(since(user)!.afterStartMs).toBeLessThan(SCHEDULE[0]! + SWEEP_MS);
    }
  });

  it('completed after its first poll: at the next poll, 10 s after the first, then 30 s after each', async () => {
    const running = await start();
    const { emulator, receiver, clock, deliveries } = running;
    receiver.start();
    const { token } = await receiver.startVerification({ externalUserId: 'slow-to-finish' });
    const startedAt = clock.now();
    // The first poll, 5 s after the start: still pending.
    await sweepAfter(running, SCHEDULE[0]!);
    const firstPoll = clock.now();
    expect(firstPoll - startedAt).toBe(SCHEDULE[0]);
    await emulator.completeSession(token, 'verified');
    // Nothing until the next poll is due, 10 s after the first: then the result.
    await sweepAfter(running, SWEEP_MS);
    expect(deliveries).toEqual([]);
    await sweepAfter(running, SWEEP_MS);
    expect(deliveries).toEqual([
      { user: 'slow-to-finish', source: 'poll', at: firstPoll + SCHEDULE[1]! },
    ]);

    // A session still pending at its second poll is polled 30 s after it, and so on.
    const { token: later } = await receiver.startVerification({ externalUserId: 'slower' });
    const laterStart = clock.now();
    await sweepAfter(running, SCHEDULE[0]!);
    await sweepAfter(running, SCHEDULE[1]!);
    const secondPoll = clock.now();
    expect(secondPoll - laterStart).toBe(SCHEDULE[0]! + SCHEDULE[1]!);
    await emulator.completeSession(later, 'verified');
    for (let waited = 0; waited < SCHEDULE[2]!; waited += SWEEP_MS) {
      expect(deliveries.map((entry) => entry.user)).not.toContain('slower');
      await sweepAfter(running, SWEEP_MS);
    }
    expect(deliveries.at(-1)).toEqual({
      user: 'slower',
      source: 'poll',
      at: secondPoll + SCHEDULE[2]!,
    });
  });
});

describe('which way the result of a completed page arrives', () => {
  it("the browser's return before the webhook: confirm() delivers it (source poll), and the webhook then finds it delivered", async () => {
    const running = await start();
    const { emulator, receiver, deliveries, app } = running;
    const { token } = await receiver.startVerification({ externalUserId: 'returns-first' });
    // The page is completed while no webhook can leave; the browser comes back first.
    await emulator.completeSession(token, 'verified');
    expect(await receiver.confirm(token)).toMatchObject({ status: 'verified' });
    expect(deliveries).toEqual([
      expect.objectContaining({ user: 'returns-first', source: 'poll' }),
    ]);

    // Then the webhook, sent again now that there is somewhere to send it.
    emulator.setCallbackUrl(app.url);
    const listed = (await (await fetch(`${emulator.url}/__emulator/sessions`)).json()) as {
      sessions: Array<{ id: string }>;
    };
    const [session] = listed.sessions;
    const resend = await fetch(`${emulator.url}/__emulator/sessions/${session!.id}/resend`, {
      method: 'POST',
    });
    expect(resend.status).toBe(202);
    await emulator.webhooksSettled();
    expect(emulator.stats().webhooks.delivered).toBe(1);
    expect(deliveries).toHaveLength(1);
  });
});
