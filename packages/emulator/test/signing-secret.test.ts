import { createHmac } from 'node:crypto';
import {
  createReceiver,
  MemoryStore,
  type Receiver,
  type VerificationCompletedEvent,
} from '@faceverify/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/index.js';
import { control, openSession } from './support/api.js';
import { startReceiverApp } from './support/receiver-app.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

// The service's Settings switch an account to a new signing secret while it runs; the emulator
// does the same, so that the rotation in docs/security.md can be rehearsed against it.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function emulatorWith(options: Parameters<typeof startEmulator>[0]): Promise<Emulator> {
  const emulator = await startEmulator({ seed: 'signing-secret', ...options });
  cleanups.push(() => emulator.close());
  return emulator;
}

async function receiverWith(secret: string): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver({ secret });
  cleanups.push(() => receiver.close());
  return receiver;
}

const hexHmac = (secret: string, body: Buffer) =>
  createHmac('sha256', secret).update(body).digest('hex');

describe('switching a signing secret while the emulator runs', () => {
  it('setSigningSecret signs every webhook sent from then on with the new secret', async () => {
    const before = await receiverWith('whsec_before');
    const emulator = await emulatorWith({
      signingSecret: 'whsec_before',
      callbackUrl: before.url,
    });
    const first = await openSession(emulator, 'user-before');
    await emulator.completeSession(first.token, 'verified');
    await emulator.webhooksSettled();

    emulator.setSigningSecret('whsec_after');
    expect(emulator.signingSecret).toBe('whsec_after');
    expect(emulator.accounts[0]?.signingSecret).toBe('whsec_after');
    const second = await openSession(emulator, 'user-after');
    await emulator.completeSession(second.token, 'verified');
    await emulator.webhooksSettled();

    const [signedBefore, signedAfter] = await before.waitFor(2);
    expect(signedBefore?.signature).toBe(hexHmac('whsec_before', signedBefore!.rawBody));
    expect(signedAfter?.signature).toBe(hexHmac('whsec_after', signedAfter!.rawBody));
    expect(() => emulator.setSigningSecret('')).toThrow(/signingSecret must not be empty/);
    expect(emulator.signingSecret).toBe('whsec_after');
  });

  it("PUT /__emulator/signing-secret?account= switches that account's secret only", async () => {
    const acme = await receiverWith('whsec_acme');
    const globex = await receiverWith('whsec_globex_new');
    const emulator = await emulatorWith({
      accounts: [
        { id: 'acme', signingSecret: 'whsec_acme', callbackUrl: acme.url },
        { id: 'globex', signingSecret: 'whsec_globex_old', callbackUrl: globex.url },
      ],
    });

    const put = await control(emulator, 'PUT', 'signing-secret?account=globex', {
      signingSecret: 'whsec_globex_new',
    });
    expect(put.status).toBe(200);
    // The answer confirms the switch without repeating the secret.
    expect(put.body).toEqual({ account: 'globex', switched: true });
    expect(emulator.account('globex').signingSecret).toBe('whsec_globex_new');
    expect(emulator.account('acme').signingSecret).toBe('whsec_acme');

    for (const [id, user] of [
      ['acme', 'user-of-acme'],
      ['globex', 'user-of-globex'],
    ] as const) {
      const session = await emulator.createSession({
        externalUserId: user,
        apiKey: emulator.account(id).apiKey,
      });
      await emulator.completeSession(session.token, 'verified');
    }
    await emulator.webhooksSettled();
    expect((await acme.waitFor(1))[0]?.verified).toBe(true);
    expect((await globex.waitFor(1))[0]?.verified).toBe(true);

    const empty = await control(emulator, 'PUT', 'signing-secret', { signingSecret: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toMatch(/signingSecret/);
    const unknownField = await control(emulator, 'PUT', 'signing-secret', { secret: 'x' });
    expect(unknownField.status).toBe(400);
    const unknownAccount = await control(emulator, 'PUT', 'signing-secret?account=initech', {
      signingSecret: 'whsec_x',
    });
    expect(unknownAccount.status).toBe(404);
    expect(unknownAccount.body.message).toContain('acme, globex');
    // Refused requests changed nothing.
    expect(emulator.account('acme').signingSecret).toBe('whsec_acme');
  });

  it('needs the control token wherever the control endpoints do, as whoever holds the secret forges webhooks', async () => {
    const emulator = await emulatorWith({
      signingSecret: 'whsec_kept',
      controlToken: 'fvctl_signing_secret_test_token',
    });
    const put = (authorization?: string) =>
      fetch(`${emulator.url}/__emulator/signing-secret`, {
        method: 'PUT',
        headers: {
          'content-type': 'application/json',
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: JSON.stringify({ signingSecret: 'whsec_of_an_attacker' }),
      });
    expect((await put()).status).toBe(401);
    expect(emulator.signingSecret).toBe('whsec_kept');
    expect((await put(`Bearer ${emulator.controlToken}`)).status).toBe(200);
    expect(emulator.signingSecret).toBe('whsec_of_an_attacker');
  });

  it('rehearses the rotation of docs/security.md end to end: every result arrives by webhook, verified', async () => {
    const OLD = 'whsec_rotation_old_0123456789abcdef';
    const NEW = 'whsec_rotation_new_fedcba9876543210';
    // One app whose configuration changes at each step (a restart), on one store.
    const store = new MemoryStore();
    const delivered: VerificationCompletedEvent[] = [];
    let current: Receiver | undefined;
    const app = await startReceiverApp(() => current!);
    cleanups.push(() => app.close());
    const emulator = await emulatorWith({ signingSecret: OLD, callbackUrl: app.url });
    const configure = (secret: { label: string; secret: string }[]) => {
      current = createReceiver({
        secret,
        client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
        store,
        logger: false,
      });
      current.on('verification.completed', (event) => {
        delivered.push(event);
      });
      return current;
    };
    const verifiedThrough = async (receiver: Receiver, user: string) => {
      const { token } = await receiver.startVerification({ externalUserId: user });
      await emulator.completeSession(token, 'verified');
      await emulator.webhooksSettled();
    };
    const old = { label: 'old', secret: OLD };
    const next = { label: 'new', secret: NEW };

    await verifiedThrough(configure([old]), 'before');
    // 1. The new secret added last: nothing keyed under it yet.
    await verifiedThrough(configure([old, next]), 'added');
    // 2. Moved first, then the account switched to it.
    const movedFirst = configure([next, old]);
    await verifiedThrough(movedFirst, 'moved-first');
    const put = await control(emulator, 'PUT', 'signing-secret', { signingSecret: NEW });
    expect(put.status).toBe(200);
    await verifiedThrough(movedFirst, 'switched');
    // 3. The old secret removed.
    await verifiedThrough(configure([next]), 'removed');

    expect(delivered.map((event) => [event.data.external_user_id, event.source])).toEqual([
      ['before', 'webhook'],
      ['added', 'webhook'],
      ['moved-first', 'webhook'],
      ['switched', 'webhook'],
      ['removed', 'webhook'],
    ]);
    // Which secret verified each: the sign that the old one is no longer in use.
    expect(delivered.map((event) => event.secretLabel)).toEqual([
      'old',
      'old',
      'old',
      'new',
      'new',
    ]);
  });
});
