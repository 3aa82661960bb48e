import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver, type Receiver, type VerificationCompletedEvent } from '@faceverify/core';
import { signedDelivery } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { verificationWebhook } from '@faceverify/express';
import { waitFor } from '@faceverify/test-support';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryLedger } from './support/delivery-ledger.js';
import { FAST_TIMINGS } from './support/harness.js';
import { useStoreKinds } from './support/store-dumps.js';

// Two accounts of the service on one Receiver and one store, with the same user ids: the
// emulator keeps each session with the account whose key started it, signs its webhook with
// that account's secret and sends it to that account's callback URL. Every result must reach
// its own account's session, once, whether by webhook or (for the dropped ones) by polling.

const USERS = 12;
const ACCOUNTS = {
  north: { key: 'fv_test_north_accounts', secret: 'whsec_north_accounts_0123456789' },
  south: { key: 'fv_test_south_accounts', secret: 'whsec_south_accounts_0123456789' },
} as const;
type AccountId = keyof typeof ACCOUNTS;
// Each account's sessions end differently, so a result crossing accounts would show.
const OUTCOME = { north: 'verified', south: 'liveness_failed' } as const;
const STATUS = { north: 'verified', south: 'failed' } as const;
const TOKEN_KEY = 'reliability-accounts-token-key-0123456789';

const kinds = useStoreKinds().filter((kind) => ['memory', 'redis', 'postgres'].includes(kind.id));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An Express app with the webhook on `/webhooks/verification/:account`, as docs/accounts.md mounts it. */
async function listen(receiver: Receiver): Promise<string> {
  const app = express();
  app.post('/webhooks/verification/:account', verificationWebhook(receiver));
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/verification`;
}

async function twoAccounts(
  prefix: string,
  make: (prefix: string) => ReturnType<(typeof kinds)[number]['make']>,
) {
  const emulator: Emulator = await startEmulator({
    seed: `accounts-${prefix}`,
    rateLimits: {
      verify: { limit: 100_000, windowMs: 60_000 },
      complete: { limit: 100_000, windowMs: 60_000 },
    },
    accounts: (Object.keys(ACCOUNTS) as AccountId[]).map((id) => ({
      id,
      apiKeys: [ACCOUNTS[id].key],
      signingSecret: ACCOUNTS[id].secret,
    })),
  });
  cleanups.push(() => emulator.close());
  const accountOf = (id: AccountId, secrets: readonly string[] = [ACCOUNTS[id].secret]) => ({
    secret: secrets,
    client: {
      apiKey: ACCOUNTS[id].key,
      baseUrl: emulator.url,
      createSessionsPerMinute: 100_000,
    },
  });
  const receiver = createReceiver({
    accounts: {
      // North is rotating its signing secret: a new one first, the one the service signs with after.
      north: accountOf('north', ['whsec_north_next_0123456789', ACCOUNTS.north.secret]),
      south: accountOf('south'),
    },
    tokenKeys: [TOKEN_KEY],
    store: await make(prefix),
    logger: false,
    ...FAST_TIMINGS,
  });
  cleanups.push(() => receiver.stop());
  const ledger = new DeliveryLedger();
  receiver.on('verification.completed', ledger.recordCompleted);
  const webhooks = await listen(receiver);
  for (const id of Object.keys(ACCOUNTS) as AccountId[]) {
    emulator.account(id).setCallbackUrl(`${webhooks}/${id}`);
  }
  return { emulator, receiver, ledger, webhooks };
}

describe.each(kinds)('two accounts with the same user ids on one $name', (kind) => {
  it('every result reaches its own account’s session once; a dropped webhook is polled with its own key', async () => {
    const { emulator, receiver, ledger } = await twoAccounts(`acc_${kind.id}`, kind.make);
    // The first webhooks are dropped: their results can only come by polling.
    emulator.setFaults({ dropWebhooks: { next: USERS / 2 } });
    const started = new Map<string, AccountId>();
    for (let user = 0; user < USERS; user++) {
      for (const account of Object.keys(ACCOUNTS) as AccountId[]) {
        const { token } = await receiver.startVerification({
          externalUserId: `user-${user}`,
          account,
        });
        started.set(token, account);
      }
    }
    receiver.start();
    await Promise.all(
      [...started].map(([token, account]) => emulator.completeSession(token, OUTCOME[account])),
    );
    await waitFor(
      () => ledger.missing(started.keys()).length === 0,
      `all ${started.size} sessions delivered`,
    );
    await emulator.webhooksSettled();

    expect(ledger.duplicates()).toEqual([]);
    expect(ledger.completed).toHaveLength(started.size);
    const crossed = ledger.completed.filter(
      (event: VerificationCompletedEvent) =>
        event.account !== started.get(event.sessionToken!) ||
        event.data.status !== STATUS[event.account as AccountId],
    );
    expect(crossed).toEqual([]);
    expect(
      ledger.completed.filter((event) => event.source === 'poll').length,
    ).toBeGreaterThanOrEqual(USERS / 2);
    // North's webhooks verified under its older secret, during its rotation; south has one.
    const labels = new Set(
      ledger.completed
        .filter((event) => event.source === 'webhook')
        .map((event) => `${event.account}:${event.secretLabel}`),
    );
    expect([...labels].sort()).toEqual(['north:secret#1', 'south:secret#0']);
  });

  it('a webhook signed with one account’s secret is refused on another’s URL, and a made-up account is 404', async () => {
    const { webhooks, ledger } = await twoAccounts(`acx_${kind.id}`, kind.make);
    const delivery = await signedDelivery(undefined, { secret: ACCOUNTS.south.secret });
    const post = (account: string) =>
      fetch(`${webhooks}/${account}`, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.text,
      });
    const crossSigned = await post('north');
    expect(crossSigned.status).toBe(401);
    expect(await crossSigned.json()).toMatchObject({ error: 'signature_invalid' });
    const unknown = await post('west');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'account_unknown' });
    expect(ledger.completed).toEqual([]);
  });
});
