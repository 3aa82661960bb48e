import {
  createReceiver,
  MemoryStore,
  type Receiver,
  type ReceiverAlert,
  type ReceiverOptions,
} from '@faceverify/core';
import { createTestClock } from '@faceverify/core/testing';
import { startEmulator } from '@faceverify/emulator';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startReceiverServer } from './support/receiver-server.js';

// Simulation seeds 5431, 6323, 6922 and 7221: a webhook naming a user with several open
// sessions is answered `settling` and each session polled; while the service's API fails, the
// polls fail and the sessions wait. Their results come later by polling: on another instance,
// after a restart, or more than the alarms' window after the webhook. That instance had
// accepted no webhook, and raised `webhooks_missing` ("check callback_url") though every one
// of those webhooks had reached the receiver.

const POLL_AFTER_MS = 60_000;
const WINDOW_MS = 15 * 60_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('webhooks_missing across a fleet', () => {
  it('is not raised for results polled after their webhooks reached another instance', async () => {
    const clock = createTestClock(Date.now());
    const emulator = await startEmulator({ seed: 'webhooks-missing-fleet' });
    cleanups.push(() => emulator.close());
    const store = new MemoryStore();
    const alerts: { instance: string; alert: ReceiverAlert }[] = [];
    const pollErrors: unknown[] = [];
    const instance = (name: string, extra: Partial<ReceiverOptions> = {}): Receiver => {
      const receiver = createReceiver({
        secret: emulator.signingSecret,
        client: { apiKey: emulator.apiKey, baseUrl: emulator.url, maxRetries: 0 },
        store,
        clock,
        pollScheduleMs: [POLL_AFTER_MS],
        logger: { error: () => undefined },
        ...extra,
      });
      receiver.on('verification.completed', () => undefined);
      receiver.on('alert', (alert) => {
        alerts.push({ instance: name, alert });
      });
      receiver.on('error', (error, context) => {
        if (context.stage === 'poll') pollErrors.push(error);
      });
      cleanups.push(() => receiver.stop());
      return receiver;
    };
    const first = instance('first');
    const second = instance('second');
    const server = await startReceiverServer(first);
    cleanups.push(() => server.close());
    emulator.setCallbackUrl(server.webhookUrl);

    // Three users with two open sessions each; one of each completes while polls fail.
    const completed: string[] = [];
    for (const user of ['gina', 'henry', 'ivan']) {
      const { token } = await first.startVerification({ externalUserId: user });
      await first.startVerification({ externalUserId: user, fresh: true });
      completed.push(token);
    }
    emulator.setFaults({ poll5xx: true });
    for (const token of completed) await emulator.completeSession(token, 'verified');
    await emulator.webhooksSettled();
    expect(emulator.stats().webhooks.delivered).toBe(3);
    // Each webhook's two polls failed in the background.
    await vi.waitFor(() => expect(pollErrors).toHaveLength(6));
    emulator.setFaults({});

    // Past the first instance's window: the second recovers the results by polling.
    await clock.advance(WINDOW_MS + POLL_AFTER_MS);
    const report = await second.sweep();
    expect(report.delivered).toBe(3);
    expect(await second.health()).toMatchObject({ deliveries: { byPoll: 3 } });
    expect(alerts.filter(({ alert }) => alert.code === 'webhooks_missing')).toEqual([]);
  });
});
