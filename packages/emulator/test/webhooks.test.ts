import { createServer } from 'node:http';
import { verify } from '@faceverify/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../src/index.js';
import { control, getSession, type Json, openSession, postComplete } from './support/api.js';
import { closeServer, listenOnLoopback, refusingUrl } from './support/servers.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const cleanups: Array<() => Promise<void>> = [];

async function emulatorWith(options: Parameters<typeof startEmulator>[0] = {}) {
  const emulator = await startEmulator(options);
  cleanups.push(() => emulator.close());
  return emulator;
}

async function receiverFor(
  secret: string,
  behaviour?: 'verify' | 'fail' | 'hang',
): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver({ secret, ...(behaviour ? { behaviour } : {}) });
  cleanups.push(() => receiver.close());
  return receiver;
}

/** An emulator whose webhooks go to a fresh receiver. */
async function emulatorAndReceiver(
  options: Parameters<typeof startEmulator>[0] = {},
  behaviour?: 'verify' | 'fail' | 'hang',
) {
  const signingSecret = 'whsec_test_secret';
  const receiver = await receiverFor(signingSecret, behaviour);
  const emulator = await emulatorWith({ signingSecret, callbackUrl: receiver.url, ...options });
  return { emulator, receiver };
}

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

const PAYLOAD_FIELDS = [
  'event',
  'status',
  'external_user_id',
  'confidence',
  'livenessPassed',
  'duplicate',
  'risk',
  'reason',
  'frontImageUrl',
];

describe('verification.completed webhook', () => {
  it('sends exactly one webhook, signed over the exact bytes, with exactly the documented fields', async () => {
    const { emulator, receiver } = await emulatorAndReceiver();
    const { token } = await openSession(emulator, 'user-🙂-ünïcødé');
    await emulator.completeSession(token, 'verified');
    const [webhook] = await receiver.waitFor(1);
    await emulator.webhooksSettled();
    expect(receiver.received).toHaveLength(1);
    expect(webhook?.headers['content-type']).toBe('application/json');
    expect(webhook?.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(await verify(webhook?.rawBody ?? '', webhook?.signature, emulator.signingSecret)).toBe(
      true,
    );
    expect(await verify(webhook?.rawBody ?? '', webhook?.signature, 'whsec_other')).toBe(false);
    const payload = JSON.parse(webhook?.rawBody.toString('utf8') ?? '') as Json;
    expect(Object.keys(payload).sort()).toEqual([...PAYLOAD_FIELDS].sort());
    expect(payload).toMatchObject({
      event: 'verification.completed',
      status: 'verified',
      external_user_id: 'user-🙂-ünïcødé',
      livenessPassed: true,
      duplicate: false,
      risk: 'low',
      reason: null,
    });
    expect(typeof payload.confidence).toBe('number');
    expect(String(payload.frontImageUrl)).toContain(`${emulator.url}/files/front/`);
    expect(JSON.stringify(payload)).not.toContain(token);
    expect(emulator.stats().webhooks).toMatchObject({
      events: 1,
      sent: 1,
      delivered: 1,
      failed: 0,
    });
  });

  it('carries the result of a failed outcome', async () => {
    const { emulator, receiver } = await emulatorAndReceiver();
    const { token } = await openSession(emulator, 'user-dup');
    await emulator.completeSession(token, 'duplicate');
    const [webhook] = await receiver.waitFor(1);
    expect(JSON.parse(webhook?.rawBody.toString() ?? '')).toMatchObject({
      status: 'failed',
      duplicate: true,
      reason: 'duplicate_face',
    });
  });

  it('varies the JSON layout, and every layout verifies over the bytes as sent', async () => {
    const { emulator, receiver } = await emulatorAndReceiver({
      seed: 'layouts',
      rateLimits: { complete: { limit: 100, windowMs: 60_000 } },
    });
    for (let index = 0; index < 12; index++) {
      const { token } = await openSession(emulator, `user-${index}`);
      await emulator.completeSession(token, 'verified');
    }
    const webhooks = await receiver.waitFor(12);
    expect(webhooks.every((webhook) => webhook.verified)).toBe(true);
    const bodies = webhooks.map((webhook) => webhook.rawBody.toString('utf8'));
    const reserialized = bodies.map((body) => JSON.stringify(JSON.parse(body)));
    // Some bodies are not what JSON.stringify of the parsed object gives: re-serializing breaks them.
    expect(bodies.some((body, index) => body !== reserialized[index])).toBe(true);
    const broken = await Promise.all(
      webhooks.map((webhook, index) =>
        verify(reserialized[index] ?? '', webhook.signature, emulator.signingSecret),
      ),
    );
    expect(broken.some((verified) => !verified)).toBe(true);
  });

  it('answers the completion without waiting for the receiver', async () => {
    // The receiver never answers, and the webhook's timeout outlasts the test: an answer to
    // the completion call proves it did not wait for the receiver.
    const { emulator, receiver } = await emulatorAndReceiver(
      { webhookTimeoutMs: 3_600_000 },
      'hang',
    );
    const { token } = await openSession(emulator);
    const answer = await postComplete(emulator, token, { outcome: 'verified' });
    expect(answer.status).toBe(200);
    await receiver.waitFor(1);
    expect(emulator.stats().webhooks).toMatchObject({ sent: 1, delivered: 0, failed: 0 });
  });

  describe('a failed delivery is not retried and changes nothing', () => {
    it('when the callback refuses connections', async () => {
      const emulator = await emulatorWith({ callbackUrl: await refusingUrl() });
      const { token } = await openSession(emulator);
      await emulator.completeSession(token, 'verified');
      await emulator.webhooksSettled();
      expect(emulator.stats().webhooks).toMatchObject({
        events: 1,
        sent: 1,
        delivered: 0,
        failed: 1,
      });
      expect(emulator.stats().webhooks.sent).toBe(1);
      const session = await getSession(emulator, token);
      expect(session.body).toMatchObject({ status: 'verified', result: { status: 'verified' } });
    });

    it('when the receiver answers 500', async () => {
      const { emulator, receiver } = await emulatorAndReceiver({}, 'fail');
      const { token } = await openSession(emulator);
      await emulator.completeSession(token, 'liveness_failed');
      await emulator.webhooksSettled();
      expect(receiver.received).toHaveLength(1);
      expect(emulator.stats().webhooks).toMatchObject({ sent: 1, failed: 1 });
      expect((await getSession(emulator, token)).body.status).toBe('failed');
    });

    it('when the receiver does not answer within the timeout', async () => {
      const { emulator, receiver } = await emulatorAndReceiver({ webhookTimeoutMs: 150 }, 'hang');
      const { token } = await openSession(emulator);
      const started = performance.now();
      await emulator.completeSession(token, 'verified');
      await emulator.webhooksSettled();
      expect(performance.now() - started).toBeGreaterThanOrEqual(145);
      expect(receiver.received).toHaveLength(1);
      expect(emulator.stats().webhooks).toMatchObject({ sent: 1, failed: 1, delivered: 0 });
      expect((await getSession(emulator, token)).body.status).toBe('verified');
    });
  });

  it('sends nothing, and counts it, when no callback URL is set', async () => {
    const emulator = await emulatorWith();
    const { token } = await openSession(emulator);
    await emulator.completeSession(token, 'verified');
    await emulator.webhooksSettled();
    expect(emulator.stats().webhooks).toMatchObject({ events: 1, skipped: 1, sent: 0 });
  });

  it('follows a callback URL changed at runtime, through the library or the control endpoint', async () => {
    const secret = 'whsec_runtime';
    const first = await receiverFor(secret);
    const second = await receiverFor(secret);
    const emulator = await emulatorWith({ signingSecret: secret });
    expect(emulator.callbackUrl).toBeNull();

    emulator.setCallbackUrl(first.url);
    expect(emulator.callbackUrl).toBe(first.url);
    await emulator.completeSession((await openSession(emulator)).token, 'verified');
    await first.waitFor(1);

    const put = await control(emulator, 'PUT', 'settings', { callbackUrl: second.url });
    expect(put).toMatchObject({ status: 200, body: { callbackUrl: second.url } });
    expect((await control(emulator, 'GET', 'settings')).body).toEqual({ callbackUrl: second.url });
    await emulator.completeSession((await openSession(emulator)).token, 'verified');
    await second.waitFor(1);
    await emulator.webhooksSettled();
    expect(first.received).toHaveLength(1);
    expect(second.received).toHaveLength(1);
  });

  it('refuses a callback URL that is not http(s)', async () => {
    const emulator = await emulatorWith();
    expect(() => emulator.setCallbackUrl('ftp://example.com/hook')).toThrow(/callbackUrl/);
    const put = await control(emulator, 'PUT', 'settings', { callbackUrl: 'not a url' });
    expect(put.status).toBe(400);
    expect(put.body.error).toBe('invalid_request');
    const unknown = await control(emulator, 'PUT', 'settings', { callback: 'http://x.test' });
    expect(unknown.status).toBe(400);
    expect(emulator.callbackUrl).toBeNull();
  });
});

describe('a callback URL whose path the app does not serve', () => {
  async function emulatorLoggingTo(callbackStatus: number) {
    const server = createServer((_request, response) => response.writeHead(callbackStatus).end());
    const base = await listenOnLoopback(server);
    cleanups.push(() => closeServer(server));
    const warnings: string[] = [];
    const logger = { info: () => {}, warn: (message: string) => warnings.push(message) };
    const emulator = await emulatorWith({ callbackUrl: `${base}/webhooks/faceverify`, logger });
    return { emulator, warnings };
  }

  it('logs a hint to check the callback path when the callback answers 404', async () => {
    const { emulator, warnings } = await emulatorLoggingTo(404);
    const { token } = await openSession(emulator);
    await emulator.completeSession(token, 'verified');
    await emulator.webhooksSettled();
    const warning = warnings.find((line) => line.includes(': 404 ('));
    expect(warning).toBeDefined();
    expect(warning).toContain('/webhooks/faceverify');
    expect(warning).toContain('Nothing answers at this path');
    expect(warning).toContain('--callback-url');
    expect(warning).toContain('/webhooks/verification');
  });

  it('gives no such hint for other failures', async () => {
    const { emulator, warnings } = await emulatorLoggingTo(500);
    const { token } = await openSession(emulator);
    await emulator.completeSession(token, 'verified');
    await emulator.webhooksSettled();
    const warning = warnings.find((line) => line.includes(': 500 ('));
    expect(warning).toBeDefined();
    expect(warning).not.toContain('Nothing answers at this path');
  });
});
