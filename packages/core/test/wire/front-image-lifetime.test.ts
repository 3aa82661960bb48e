import { expect, it } from 'vitest';
import { fetchFrontImage } from '../../src/image/fetch-front-image.js';
import type { ImageFetchError } from '../../src/image/image-fetch-error.js';
import { createReceiver, type VerificationCompletedEvent } from '../../src/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

// Issue 35, part 1, item 3: the front image link lasts 15 minutes. A delivery after that (a
// retry, a dead letter delivered again) hands handlers no dead link presented as live: the
// link is removed and `frontImage` says it expired.

const SECRET = 'whsec_front_image_lifetime';
const IMAGE = 'https://files.faceverify.example/front/abc.jpg?sig=signed-query';
const MINUTE = 60_000;

it('a retry past the link’s 15 minutes gets no link, marked expired; so does a dead letter', async () => {
  const clock = createTestClock();
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    clock,
    logger: false,
    retryScheduleMs: [20 * MINUTE],
    maxDeliveryAttempts: 2,
  });
  const seen: VerificationCompletedEvent[] = [];
  receiver.on('verification.completed', (event) => {
    seen.push(event);
    throw new Error('the archive is down');
  });
  receiver.on('verification.undeliverable', () => undefined);
  receiver.on('error', () => undefined);
  const delivery = await signedDelivery(fixturePayload({ frontImageUrl: IMAGE }), {
    secret: SECRET,
  });
  await receiver.receive(delivery);
  expect(seen[0]).toMatchObject({
    data: { frontImageUrl: IMAGE },
    frontImage: { state: 'live', expiresAt: new Date(clock.now() + 15 * MINUTE) },
  });

  await clock.advance(20 * MINUTE);
  await receiver.sweep();
  expect(seen).toHaveLength(2);
  const late = seen[1]!;
  expect(late.data.frontImageUrl).toBe('');
  expect(late.frontImage).toEqual({
    state: 'expired',
    expiredAt: new Date(late.receivedAt.getTime() + 15 * MINUTE),
  });
  // The rest of the result is as it was.
  expect(late.data.status).toBe(seen[0]!.data.status);
  await expect(
    fetchFrontImage(late, { allowedHosts: ['files.faceverify.example'] }),
  ).rejects.toMatchObject({ reason: 'expired' } satisfies Partial<ImageFetchError>);

  const { deadLetters } = await receiver.deadLetters.list();
  expect(deadLetters).toHaveLength(1);
  expect(deadLetters[0]!.data.frontImageUrl).toBe('');
  expect(deadLetters[0]!.frontImage.state).toBe('expired');
  await receiver.stop();
});

it('the store keeps the link only while a delivery within its 15 minutes may use it', async () => {
  const clock = createTestClock();
  const store = new MemoryStore();
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store,
    clock,
    logger: false,
    retryScheduleMs: [5 * MINUTE],
    maxDeliveryAttempts: 2,
  });
  const failures = ['the archive is down', 'still down'];
  const seen: VerificationCompletedEvent[] = [];
  receiver.on('verification.completed', (event) => {
    seen.push(event);
    const failure = failures.shift();
    if (failure) throw new Error(failure);
  });
  receiver.on('verification.undeliverable', () => undefined);
  receiver.on('error', () => undefined);
  /** The image link of each dead letter, opened with the Receiver's keys. */
  const storedLinks = async () => {
    const { deadLetters } = await receiver.deadLetters.list();
    return deadLetters.map((letter) => letter.data.frontImageUrl);
  };
  const delivery = await signedDelivery(fixturePayload({ frontImageUrl: IMAGE }), {
    secret: SECRET,
  });
  await receiver.receive(delivery);

  // A retry due 5 minutes later, within the link's life, is handed the live link.
  await clock.advance(5 * MINUTE);
  await receiver.sweep();
  expect(seen.map((event) => event.frontImage.state)).toEqual(['live', 'live']);
  expect(seen[1]!.data.frontImageUrl).toBe(IMAGE);

  // Given up: the dead letter keeps no link, and its redelivery says the link was removed.
  expect(await storedLinks()).toEqual(['']);
  const [letter] = (await receiver.deadLetters.list()).deadLetters;
  expect(letter!.frontImage).toEqual({ state: 'removed' });
  expect(await receiver.deadLetters.redeliver(letter!.key)).toBe(true);
  await receiver.sweep();
  expect(seen).toHaveLength(3);
  expect(seen[2]!.frontImage).toEqual({ state: 'removed' });
  expect(seen[2]!.data.frontImageUrl).toBe('');
  await expect(
    fetchFrontImage(seen[2]!, { allowedHosts: ['files.faceverify.example'] }),
  ).rejects.toMatchObject({ reason: 'removed' } satisfies Partial<ImageFetchError>);
  await receiver.stop();
});

it('a delivered result is kept closed without its link; the handler had it', async () => {
  const clock = createTestClock();
  const receiver = createReceiver({
    secret: SECRET,
    // Never called: the webhook names its session, and no sweep runs.
    client: { apiKey: 'key_front_image_lifetime', baseUrl: 'http://127.0.0.1:9' },
    store: new MemoryStore(),
    clock,
    logger: false,
  });
  const links: string[] = [];
  receiver.on('verification.completed', (event) => {
    links.push(event.data.frontImageUrl);
  });
  await receiver.track('tok_closed_link', 'user_closed_link');
  const payload = fixturePayload({
    external_user_id: 'user_closed_link',
    frontImageUrl: IMAGE,
    extra: { session_token: 'tok_closed_link' },
  });
  expect((await receiver.receive(await signedDelivery(payload, { secret: SECRET }))).status).toBe(
    200,
  );
  expect(links).toEqual([IMAGE]);
  // What the store kept, opened with the Receiver's keys: the result, without its link.
  const outcome = await receiver.waitForResult('tok_closed_link', { timeoutMs: 0 });
  expect(outcome).toMatchObject({
    state: 'completed',
    result: { status: payload.status, frontImageUrl: '' },
  });
  await receiver.stop();
});
