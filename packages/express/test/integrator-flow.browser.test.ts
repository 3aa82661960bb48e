import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver, type VerificationCompletedEvent } from '@faceverify/core';
import { startEmulator } from '@faceverify/emulator';
import express from 'express';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { verificationWebhook } from '../src/index.js';

// No skip when Chromium is missing: launching fails and so does the test.
let browser: Browser;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
});

it('a person completes the hosted page; an Express app built with @faceverify/express gets the signed webhook', async () => {
  const emulator = await startEmulator({ seed: 'integrator-flow' });
  const receiver = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
  });
  const events: VerificationCompletedEvent[] = [];
  receiver.on('verification.completed', (event) => {
    events.push(event);
  });

  const app = express();
  app.use(verificationWebhook(receiver));
  // The redirect is never the result: the return page asks the service through confirm().
  app.get('/verification/return', async (req, res) => {
    const confirmed = await receiver.confirm(String(req.query.token));
    res.type('html').send(`<!doctype html><title>Back</title><h1>Status: ${confirmed.status}</h1>`);
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  emulator.setCallbackUrl(`${appUrl}/webhooks/verification`);

  try {
    const { verifyUrl, token } = await receiver.startVerification({
      externalUserId: 'browser-person',
      redirectUrl: `${appUrl}/verification/return`,
    });
    const page = await browser.newPage();
    await page.goto(verifyUrl);
    await page.getByRole('button', { name: 'Verified', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/verification/return');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Status: verified',
    );
    await emulator.webhooksSettled();

    const stats = emulator.stats();
    expect(stats.webhooks.sent).toBe(1);
    expect(stats.webhooks.delivered).toBe(1);
    expect(events).toHaveLength(1);
    expect(events[0]?.sessionToken).toBe(token);
    expect(events[0]?.data).toMatchObject({
      event: 'verification.completed',
      status: 'verified',
      external_user_id: 'browser-person',
      livenessPassed: true,
    });
    await page.close();
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await emulator.close();
  }
});
