import {
  createReceiver,
  MemoryStore,
  type Receiver,
  type ReceiverOptions,
  type VerificationCompletedEvent,
  type VerificationSupersededEvent,
} from '@faceverify/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/index.js';
import { control } from './support/api.js';
import { startReceiverApp } from './support/receiver-app.js';

// "Rehearse a superseded result" (README): a user fails a first session, starts a second and
// passes it; then the first one's result arrives late. Here against a Receiver on a MemoryStore,
// by every path the late result can take: its webhook, a poll, confirm(), a dead letter
// delivered again, and the return page's waitForResult.

const USER = 'user-who-tried-twice';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An app with a Receiver on a MemoryStore, its webhook route the emulator's callback URL. */
async function rehearsal(options: Partial<ReceiverOptions> = {}) {
  let receiver: Receiver | undefined;
  const app = await startReceiverApp(() => receiver!);
  cleanups.push(() => app.close());
  const emulator = await startEmulator({ seed: 'superseded', callbackUrl: app.url });
  cleanups.push(() => emulator.close());
  receiver = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
    store: new MemoryStore(),
    logger: false,
    pollScheduleMs: [0],
    supersededResults: 'skip',
    ...options,
  });
  const seen = {
    completed: [] as VerificationCompletedEvent[],
    superseded: [] as VerificationSupersededEvent[],
  };
  receiver.on('verification.completed', (event) => {
    seen.completed.push(event);
  });
  receiver.on('verification.superseded', (event) => {
    seen.superseded.push(event);
  });
  return { receiver, emulator, seen };
}

/**
 * The first session, then the second, started and tracked for one user; the second passed
 * and was delivered; then the first failed (liveness), its webhook lost on the way.
 */
async function secondPassedFirst(receiver: Receiver, emulator: Emulator) {
  const first = await emulator.createSession({ externalUserId: USER });
  await receiver.track(first.token, USER);
  // A session's start is a millisecond of the Receiver's clock: the second one's is later.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const second = await emulator.createSession({ externalUserId: USER });
  await receiver.track(second.token, USER);
  // Both webhooks are lost on the way: the second's result is confirmed on its return page
  // (with two sessions open, its webhook would have both polled, the first among them).
  emulator.setFaults({ dropWebhooks: { next: 2 } });
  await emulator.completeSession(second.token, 'verified');
  expect(await receiver.confirm(second.token)).toMatchObject({ status: 'verified' });
  await emulator.completeSession(first.token, 'liveness_failed');
  await emulator.webhooksSettled();
  return { first: first.token, second: second.token };
}

/** Only the second session's result reached the handlers; the first's was passed on as superseded. */
function expectOnlySecondHandled(
  seen: Awaited<ReturnType<typeof rehearsal>>['seen'],
  tokens: { first: string; second: string },
) {
  expect(seen.completed.map((event) => [event.sessionToken, event.superseded])).toEqual([
    [tokens.second, false],
  ]);
  expect(seen.superseded).toHaveLength(1);
  const { event } = seen.superseded[0]!;
  expect(event.data.status).toBe('failed');
  expect(event.superseded).toBe(true);
  expect(event.sessionStartedAt!.getTime()).toBeLessThan(
    seen.completed[0]!.sessionStartedAt!.getTime(),
  );
}

describe('a superseded result rehearsed against the emulator', () => {
  it("the first session's late webhook is confirmed, answered superseded, and never handled", async () => {
    const { receiver, emulator, seen } = await rehearsal();
    const tokens = await secondPassedFirst(receiver, emulator);
    await emulator.resendWebhook(tokens.first);
    await emulator.webhooksSettled();
    expectOnlySecondHandled(seen, tokens);
    expect(seen.superseded[0]!.event).toMatchObject({ source: 'webhook', confirmed: true });
    const { body } = await control(emulator, 'GET', 'sessions');
    const answers = (body.sessions as { attempts: { answer: string }[] }[]).flatMap((session) =>
      session.attempts.map((attempt) => attempt.answer),
    );
    expect(answers.some((answer) => answer.includes('"superseded":true'))).toBe(true);
    await expect(receiver.waitForResult(tokens.first)).resolves.toMatchObject({
      state: 'superseded',
    });
  });

  it("a poll finds the first session's result: skipped by the sweep", async () => {
    const { receiver, emulator, seen } = await rehearsal();
    const tokens = await secondPassedFirst(receiver, emulator);
    expect(await receiver.sweep()).toMatchObject({ superseded: 1, delivered: 0 });
    expectOnlySecondHandled(seen, tokens);
    expect(seen.superseded[0]!.event.source).toBe('poll');
  });

  it("confirm() on the first session's return page: superseded, and the page's wait says so", async () => {
    const { receiver, emulator, seen } = await rehearsal();
    const tokens = await secondPassedFirst(receiver, emulator);
    const waiting = receiver.waitForResult(tokens.first, { timeoutMs: 10_000 });
    expect(await receiver.confirm(tokens.first)).toMatchObject({
      status: 'failed',
      superseded: true,
    });
    await expect(waiting).resolves.toMatchObject({ state: 'superseded', source: 'poll' });
    expectOnlySecondHandled(seen, tokens);
  });

  it('a dead letter of the first session, delivered again once the second passed, is skipped', async () => {
    const { receiver, emulator, seen } = await rehearsal({ maxDeliveryAttempts: 1 });
    let failing = true;
    receiver.on('verification.completed', () => {
      if (failing) throw new Error('the users table is locked');
    });
    const first = await emulator.createSession({ externalUserId: USER });
    await receiver.track(first.token, USER);
    await emulator.completeSession(first.token, 'liveness_failed');
    await emulator.webhooksSettled();
    const [letter] = (await receiver.deadLetters.list()).deadLetters;
    expect(letter?.data.status).toBe('failed');
    failing = false;
    seen.completed.length = 0;
    const second = await emulator.createSession({ externalUserId: USER });
    await receiver.track(second.token, USER);
    await emulator.completeSession(second.token, 'verified');
    await emulator.webhooksSettled();
    expect(await receiver.deadLetters.redeliver(letter!.key)).toBe(true);
    expect(await receiver.sweep()).toMatchObject({ superseded: 1 });
    expectOnlySecondHandled(seen, { first: first.token, second: second.token });
    expect((await receiver.deadLetters.list()).deadLetters).toEqual([]);
  });

  it("with supersededResults: 'deliver' (the default) both reach the handlers, the first marked", async () => {
    const { receiver, emulator, seen } = await rehearsal({ supersededResults: 'deliver' });
    const tokens = await secondPassedFirst(receiver, emulator);
    await emulator.resendWebhook(tokens.first);
    await emulator.webhooksSettled();
    expect(seen.completed.map((event) => [event.sessionToken, event.superseded])).toEqual([
      [tokens.second, false],
      [tokens.first, true],
    ]);
    expect(seen.superseded).toEqual([]);
  });

  it('resendWebhook refuses a token of no session, and a session not completed', async () => {
    const emulator = await startEmulator({ seed: 'superseded' });
    cleanups.push(() => emulator.close());
    await expect(emulator.resendWebhook('not-a-token')).rejects.toThrow(
      'No session has this token.',
    );
    const pending = await emulator.createSession({ externalUserId: USER });
    await expect(emulator.resendWebhook(pending.token)).rejects.toThrow(/complete it first/);
  });
});
