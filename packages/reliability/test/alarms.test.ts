import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import {
  createReceiver,
  MemoryStore,
  type Receiver,
  type ReceiverAlert,
  type ReceiverOptions,
} from '@faceverify/core';
import { createTestClock, type TestClock } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { captureRawBody, verificationWebhook } from '@faceverify/express';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { type ReceiverServer, startReceiverServer } from './support/receiver-server.js';

// Issue: with a wrong secret, a parser mounted first or a callback URL that does not reach
// the receiver, every result still arrived by polling and nobody heard of the fault. Each
// test makes the misconfiguration happen for real, against the emulator over HTTP, and
// asserts the alert, its wording and the health report.

const POLL_AFTER_MS = 60_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(receiverOptions: Partial<ReceiverOptions> = {}) {
  const clock: TestClock = createTestClock(Date.now());
  const emulator: Emulator = await startEmulator({ seed: 'alarms' });
  cleanups.push(() => emulator.close());
  const alerts: ReceiverAlert[] = [];
  const logged: string[] = [];
  const receiver: Receiver = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
    store: new MemoryStore(),
    clock,
    pollScheduleMs: [POLL_AFTER_MS],
    logger: { error: (message) => logged.push(message) },
    ...receiverOptions,
  });
  receiver.on('verification.completed', () => undefined);
  receiver.on('alert', (alert) => {
    alerts.push(alert);
  });
  cleanups.push(() => receiver.stop());
  return { clock, emulator, receiver, alerts, logged };
}

/** Starts sessions, completes them at the emulator, and lets polling recover them. */
async function completeAndRecover(
  { clock, emulator, receiver }: Awaited<ReturnType<typeof setUp>>,
  users: string[],
) {
  for (const user of users) {
    const { token } = await receiver.startVerification({ externalUserId: user });
    await emulator.completeSession(token, 'verified');
  }
  await emulator.webhooksSettled();
  await clock.advance(POLL_AFTER_MS);
  return receiver.sweep();
}

async function listen(app: express.Express): Promise<ReceiverServer> {
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  cleanups.push(close);
  return { url, webhookUrl: `${url}/webhooks/verification`, close };
}

describe('alarms that say the fix', () => {
  it('secret_mismatch: webhooks fail their signature while polling recovers the results', async () => {
    const setup = await setUp({ secret: 'whsec_not_the_one_in_settings_0123' });
    const app = await startReceiverServer(setup.receiver);
    cleanups.push(() => app.close());
    setup.emulator.setCallbackUrl(app.webhookUrl);
    const report = await completeAndRecover(setup, ['alice']);
    expect(report.delivered).toBe(1);
    expect(setup.emulator.stats().webhooks.failed).toBe(1);
    expect(setup.alerts.map((alert) => alert.code)).toEqual(['secret_mismatch']);
    expect(setup.alerts[0]!.message).toContain('FACEVERIFY_WEBHOOK_SECRET');
    expect(setup.alerts[0]!.message).toContain("signing secret in the service's Settings");
    expect(setup.logged).toContain(setup.alerts[0]!.message);
    const health = await setup.receiver.health();
    expect(health).toMatchObject({
      status: 'failing',
      reasons: ['secret_mismatch'],
      store: { reachable: true },
      webhooks: { accepted: 0, rejected: { signature_invalid: 1 } },
      deliveries: { byPoll: 1, byWebhook: 0 },
    });
    // Once per window: more of the same raises nothing new.
    await completeAndRecover(setup, ['bob']);
    expect(setup.alerts).toHaveLength(1);
  });

  it('raw_body_unavailable: a body parser mounted before the webhook', async () => {
    const setup = await setUp();
    const app = express();
    app.use(express.json());
    app.use(verificationWebhook(setup.receiver));
    const server = await listen(app);
    setup.emulator.setCallbackUrl(server.webhookUrl);
    const { token } = await setup.receiver.startVerification({ externalUserId: 'carol' });
    await setup.emulator.completeSession(token, 'verified');
    await setup.emulator.webhooksSettled();
    expect(setup.alerts.map((alert) => alert.code)).toEqual(['raw_body_unavailable']);
    expect(setup.alerts[0]!.message).toContain('express.json() ran before verificationWebhook()');
    expect(setup.alerts[0]!.message).toContain('mount verificationWebhook() before body parsers');
    // Every instance shares the fault: each stays ready, and the alarm says what to fix.
    expect(await setup.receiver.health()).toMatchObject({ ready: true, status: 'failing' });
  });

  it('webhooks_missing: the callback URL does not reach this receiver', async () => {
    const setup = await setUp();
    // Settings point somewhere else: nothing listens there.
    const elsewhere = await listen(express());
    await elsewhere.close();
    setup.emulator.setCallbackUrl(`${elsewhere.url}/webhooks/verification`);
    const report = await completeAndRecover(setup, ['dan', 'erin', 'frank']);
    expect(report.delivered).toBe(3);
    expect(setup.alerts.map((alert) => alert.code)).toEqual(['webhooks_missing']);
    expect(setup.alerts[0]!.message).toContain('callback_url');
    expect(await setup.receiver.health()).toMatchObject({
      status: 'degraded',
      reasons: ['webhooks_missing'],
      webhooks: { lastAcceptedAt: null, accepted: 0 },
      deliveries: { byPoll: 3 },
    });
  });

  it('handler_failing: a verification.completed handler throws on every webhook', async () => {
    const setup = await setUp();
    setup.receiver.on('verification.completed', () => {
      throw new Error('the users table is locked');
    });
    const app = await startReceiverServer(setup.receiver);
    cleanups.push(() => app.close());
    setup.emulator.setCallbackUrl(app.webhookUrl);
    for (const user of ['judy', 'ken', 'leo']) {
      const { token } = await setup.receiver.startVerification({ externalUserId: user });
      await setup.emulator.completeSession(token, 'verified');
    }
    await setup.emulator.webhooksSettled();
    expect(setup.alerts.map((alert) => alert.code)).toEqual(['handler_failing']);
    expect(setup.alerts[0]!.message).toContain('failed 3 times');
    expect(await setup.receiver.health()).toMatchObject({
      status: 'degraded',
      reasons: ['handler_failing'],
      deliveries: { handlerFailures: 3, byWebhook: 0 },
    });
  });

  it('a healthy receiver reports ok and raises nothing', async () => {
    const setup = await setUp();
    const app = await startReceiverServer(setup.receiver);
    cleanups.push(() => app.close());
    setup.emulator.setCallbackUrl(app.webhookUrl);
    await completeAndRecover(setup, ['grace', 'heidi', 'ivan']);
    expect(setup.alerts).toEqual([]);
    expect(await setup.receiver.health()).toMatchObject({
      status: 'ok',
      reasons: [],
      webhooks: { accepted: 3 },
      deliveries: { byWebhook: 3, byPoll: 0 },
    });
  });
});

/** An app that lets a body parser inflate and read the body before the webhook middleware. */
async function parserFirst(receiver: Receiver): Promise<ReceiverServer> {
  const app = express();
  app.use(express.json({ verify: captureRawBody }));
  app.use(verificationWebhook(receiver));
  return listen(app);
}

/** Posts a gzip-compressed JSON body, with the signature given (or none). */
async function postGzip(url: string, json: string, signature?: string) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-encoding': 'gzip',
  };
  if (signature !== undefined) headers['x-webhook-signature'] = signature;
  const response = await fetch(url, { method: 'POST', headers, body: gzipSync(json) });
  return { status: response.status, body: (await response.json()) as { error?: string } };
}

const hmac = (secret: string, bytes: string | Uint8Array) =>
  createHmac('sha256', secret).update(bytes).digest('hex');

const payloadOf = (user: string) =>
  JSON.stringify({
    event: 'verification.completed',
    status: 'verified',
    external_user_id: user,
    confidence: 0.97,
    livenessPassed: true,
    duplicate: false,
    risk: 'low',
    reason: null,
    frontImageUrl: 'https://images.example/front.jpg?sig=x',
  });

describe('requests from strangers', () => {
  it("an end user's badly signed body naming herself, then her own session completed and its return page opened, raises nothing", async () => {
    const setup = await setUp();
    const { token } = await setup.receiver.startVerification({ externalUserId: 'eve' });
    // She names herself, and guesses her result: only the service knows it before it is told.
    const refused = await setup.receiver.receive({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': 'ab'.repeat(32) },
      body: new TextEncoder().encode(payloadOf('eve')),
    });
    expect(refused.status).toBe(401);
    await setup.emulator.completeSession(token, 'verified');
    // The return page asks the service before the service's own webhook has come.
    expect((await setup.receiver.confirm(token)).status).toBe('verified');
    expect(setup.alerts).toEqual([]);
    expect((await setup.receiver.health()).status).toBe('ok');
  });

  it('unsigned and forged gzip bodies in front of a parser move neither readiness, status nor an alarm', async () => {
    const setup = await setUp();
    const server = await parserFirst(setup.receiver);
    const forged = '0'.repeat(64);
    const answers = [
      await postGzip(server.webhookUrl, payloadOf('mallory')),
      await postGzip(server.webhookUrl, payloadOf('mallory'), forged),
      await postGzip(server.webhookUrl, '{"x":1}', 'not-hex'),
    ];
    expect(answers.map(({ status, body }) => `${status} ${body.error}`)).toEqual([
      '500 raw_body_unavailable',
      '500 raw_body_unavailable',
      '500 raw_body_unavailable',
    ]);
    // Unsigned and forged plain bodies, too.
    const plain = await fetch(server.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'x-webhook-signature': forged },
      body: payloadOf('mallory'),
    });
    expect(plain.status).toBe(401);
    expect(setup.alerts).toEqual([]);
    expect(setup.logged).toEqual([]);
    expect(await setup.receiver.health()).toMatchObject({
      ready: true,
      status: 'ok',
      reasons: [],
      webhooks: { accepted: 0, rejected: { raw_body_unavailable: 3, signature_invalid: 1 } },
    });
    // A quarter of an hour later still nothing: the window held no evidence to alarm on.
    await setup.clock.advance(15 * 60_000);
    expect(setup.alerts).toEqual([]);
  });

  it('requests without a signature do not hide webhooks_missing', async () => {
    const setup = await setUp();
    const app = await startReceiverServer(setup.receiver);
    cleanups.push(() => app.close());
    const elsewhere = await listen(express());
    await elsewhere.close();
    setup.emulator.setCallbackUrl(`${elsewhere.url}/webhooks/verification`);
    for (let index = 0; index < 3; index++) {
      const probe = await fetch(app.webhookUrl, { method: 'POST', body: '{}' });
      expect(probe.status).toBe(401);
    }
    const report = await completeAndRecover(setup, ['nina', 'omar', 'pia']);
    expect(report.delivered).toBe(3);
    expect(setup.alerts.map((alert) => alert.code)).toEqual(['webhooks_missing']);
    expect(await setup.receiver.health()).toMatchObject({ ready: true, status: 'degraded' });
  });
});

describe("a parser mounted first, shown by the service's own traffic", () => {
  it('a webhook signed over its compressed bytes raises raw_body_unavailable once polling recovers its result', async () => {
    const setup = await setUp();
    const server = await parserFirst(setup.receiver);
    // The service's own webhook goes elsewhere; the one below is its compressed twin, the
    // same bytes, as a client that compresses what it sends would post them.
    let sent: Buffer | undefined;
    const elsewhere = await listen(
      express().post('/webhooks/verification', express.raw({ type: '*/*' }), (req, res) => {
        sent = req.body as Buffer;
        res.status(503).end();
      }),
    );
    setup.emulator.setCallbackUrl(`${elsewhere.url}/webhooks/verification`);
    const { token } = await setup.receiver.startVerification({ externalUserId: 'quinn' });
    await setup.emulator.completeSession(token, 'verified');
    await setup.emulator.webhooksSettled();
    await elsewhere.close();
    const compressed = gzipSync(sent!);
    const answer = await fetch(server.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'x-webhook-signature': hmac(setup.emulator.signingSecret, compressed),
      },
      body: compressed,
    });
    expect(answer.status).toBe(500);
    // Its signature cannot be checked over what the parser kept: no alarm yet.
    expect(setup.alerts).toEqual([]);
    expect((await setup.receiver.health()).status).toBe('ok');
    await setup.clock.advance(POLL_AFTER_MS);
    expect(await setup.receiver.sweep()).toMatchObject({ delivered: 1 });
    expect(setup.alerts.map((alert) => alert.code)).toEqual(['raw_body_unavailable']);
    expect(setup.alerts[0]!.message).toContain('decompressed it before verificationWebhook()');
    expect(setup.logged).toContain(setup.alerts[0]!.message);
    expect(await setup.receiver.health()).toMatchObject({
      ready: true,
      status: 'failing',
      reasons: ['raw_body_unavailable'],
    });
  });

  it('a webhook signed over its JSON and then compressed raises it at once', async () => {
    const setup = await setUp();
    const server = await parserFirst(setup.receiver);
    const json = payloadOf('rita');
    const answer = await postGzip(
      server.webhookUrl,
      json,
      hmac(setup.emulator.signingSecret, json),
    );
    expect(answer.body.error).toBe('raw_body_unavailable');
    expect(setup.alerts.map((alert) => alert.code)).toEqual(['raw_body_unavailable']);
    expect(await setup.receiver.health()).toMatchObject({ ready: true, status: 'failing' });
  });
});
