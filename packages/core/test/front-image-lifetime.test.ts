import { expect, it } from 'vitest';
import { fetchFrontImage } from '../src/image/fetch-front-image.js';
import type { ImageFetchError } from '../src/image/image-fetch-error.js';
import { createReceiver, type VerificationCompletedEvent } from '../src/index.js';
import { MemoryStore } from '../src/store/memory-store.js';
import { createTestClock, fixturePayload, signedDelivery } from '../src/testing/index.js';

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
