import { fetchFrontImage, parseVerificationPayload } from '@faceverify/core';
import { createTestClock } from '@faceverify/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/index.js';
import { getSession, type Json, openSession } from './support/api.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

let emulator: Emulator | undefined;
let receiver: WebhookReceiver | undefined;

afterEach(async () => {
  await emulator?.close();
  await receiver?.close();
  emulator = receiver = undefined;
});

async function completedWebhookBody(options: Parameters<typeof startEmulator>[0]): Promise<Buffer> {
  receiver = await startWebhookReceiver({ secret: 'whsec_images' });
  emulator = await startEmulator({
    signingSecret: 'whsec_images',
    callbackUrl: receiver.url,
    ...options,
  });
  const { token } = await openSession(emulator);
  await emulator.completeSession(token, 'verified');
  const [webhook] = await receiver.waitFor(1);
  return webhook?.rawBody ?? Buffer.alloc(0);
}

async function completedImageUrl(options: Parameters<typeof startEmulator>[0]): Promise<string> {
  const body = await completedWebhookBody(options);
  return String((JSON.parse(body.toString() || '{}') as Json).frontImageUrl);
}

describe('front image links', () => {
  it('serve an image through the signed link of the webhook', async () => {
    const link = await completedImageUrl({});
    const url = new URL(link);
    expect(url.pathname).toMatch(/^\/files\/front\/[A-Za-z0-9_-]+$/);
    expect(url.searchParams.get('expires')).toMatch(/^\d+$/);
    expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
    const response = await fetch(link);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it('are fetched by fetchFrontImage with its default, raster-only types', async () => {
    const data = parseVerificationPayload(await completedWebhookBody({}));
    const image = await fetchFrontImage(
      { data, receivedAt: new Date() },
      { allowedHosts: [new URL(data.frontImageUrl).host] },
    );
    expect(image.contentType).toBe('image/png');
    expect(image.bytes.byteLength).toBeGreaterThan(100);
  });

  it('expire 15 minutes after they are issued by default', async () => {
    const clock = createTestClock();
    const link = await completedImageUrl({ now: clock.now });
    expect(Number(new URL(link).searchParams.get('expires'))).toBe(clock.now() + 15 * 60 * 1000);
    await clock.advance(15 * 60 * 1000 - 1);
    expect((await fetch(link)).status).toBe(200);
    await clock.advance(1);
    const refused = await fetch(link);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ success: false, error: 'image_url_expired' });
  });

  it('are refused with 403 once imageUrlTtlMs has passed', async () => {
    const clock = createTestClock();
    const link = await completedImageUrl({ imageUrlTtlMs: 50, now: clock.now });
    await clock.advance(50);
    const refused = await fetch(link);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ success: false, error: 'image_url_expired' });
  });

  it.each([
    ['a changed signature', (url: URL) => url.searchParams.set('signature', '0'.repeat(64))],
    ['no signature', (url: URL) => url.searchParams.delete('signature')],
    [
      'an extended expiry',
      (url: URL) =>
        url.searchParams.set(
          'expires',
          String(Number(url.searchParams.get('expires')) + 3_600_000),
        ),
    ],
    ['no expiry', (url: URL) => url.searchParams.delete('expires')],
    [
      'another image id',
      (url: URL) => {
        url.pathname = '/files/front/another-image';
      },
    ],
  ])('are refused with 403 invalid_image_signature for %s', async (_case, tamper) => {
    const url = new URL(await completedImageUrl({}));
    tamper(url);
    const refused = await fetch(url);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      success: false,
      error: 'invalid_image_signature',
    });
  });

  it('are issued afresh by each session poll', async () => {
    const clock = createTestClock();
    const webhookLink = await completedImageUrl({ now: clock.now });
    await clock.advance(20 * 60 * 1000);
    expect((await fetch(webhookLink)).status).toBe(403);
    const active = emulator as Emulator;
    const token = (await openSession(active)).token;
    await active.completeSession(token, 'verified');
    await clock.advance(20 * 60 * 1000);
    const polled = await getSession(active, token);
    const pollLink = String((polled.body.result as Json).frontImageUrl);
    expect((await fetch(pollLink)).status).toBe(200);
  });
});
