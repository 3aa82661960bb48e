import { readFileSync } from 'node:fs';
import { createReceiver, type Receiver, type VerificationCompletedEvent } from '@faceverify/core';
import { privacyCanary, signedDelivery } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { describe, expect, it } from 'vitest';
import { type ReceiverServer, startReceiverServer } from './support/receiver-server.js';
import { useStoreKinds } from './support/store-dumps.js';

// Issue 35, part 1: biometric results at rest. A backup, a replica or the Redis keyspace held
// every result in clear: who (external_user_id), the outcome, the reason and a signed link to
// the user's face. The guarantee, as docs/security.md states it: a dump of any store holds no
// user id, reason or image link in clear, through sessions, webhook and poll results, a
// handler failure and a dead letter; the Receiver still reads them all, opened.

// Recognisable personal data (the testing kit's canary), found in clear nowhere it must not be.
const canary = privacyCanary();
const USER = canary.externalUserId;
const REASON = canary.reason;

const kinds = useStoreKinds();

/** The canaries a dump shows in clear: ours, and the emulator's reasons and image links. */
function leaks(dump: string, delivered: readonly VerificationCompletedEvent[]): string[] {
  const seen = delivered.flatMap((event) => [
    event.data.frontImageUrl,
    // The link's path alone, without its signed query, is the user's face file too.
    event.data.frontImageUrl.split('?')[0]!,
    ...(event.data.reason ? [event.data.reason] : []),
  ]);
  const theirs = [...new Set(seen)].filter((value) => value !== '' && dump.includes(value));
  return [...canary.foundIn(dump), ...theirs];
}

/** Each field of docs/privacy.md's store table held in a form with a prefix, and the prefix. */
function documentedForms(): { field: string; prefix: string }[] {
  const doc = readFileSync(new URL('../../../docs/privacy.md', import.meta.url), 'utf8');
  const table = doc.slice(doc.indexOf('## In a store'), doc.indexOf('## In this process'));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => {
      const [, field, , form] = line.split('|').map((cell) => cell.trim());
      const prefix = /\(`([^`]+)`\)/.exec(form ?? '')?.[1];
      return field && prefix ? [{ field, prefix }] : [];
    });
}

describe.each(kinds)('results at rest ($name)', (kind) => {
  it(`a dump after sessions, webhook and poll results, a handler failure and a dead letter holds no user id, reason or image link [${kind.name}]`, async () => {
    const prefix = `results_${kind.id}`;
    const store = await kind.make(prefix);
    const emulator: Emulator = await startEmulator({ seed: `results-${prefix}` });
    const secret = emulator.signingSecret;
    const receiver: Receiver = createReceiver({
      secret,
      client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
      store,
      logger: false,
      maxDeliveryAttempts: 1,
    });
    const delivered: VerificationCompletedEvent[] = [];
    receiver.on('verification.completed', (event) => {
      delivered.push(event);
      if (event.data.status === 'failed') throw new Error('the archive is down');
    });
    receiver.on('verification.undeliverable', () => undefined);
    receiver.on('error', () => undefined);
    // A webhook-only Receiver on the same store delivers a result no session vouches for:
    // ours, with a distinctive reason and image link, whose handler fails (a dead letter).
    const webhookOnly = createReceiver({
      secret,
      client: false,
      store,
      logger: false,
      maxDeliveryAttempts: 1,
    });
    webhookOnly.on('verification.completed', (event) => {
      delivered.push(event);
      throw new Error('the archive is down');
    });
    webhookOnly.on('verification.undeliverable', () => undefined);
    webhookOnly.on('error', () => undefined);
    const app: ReceiverServer = await startReceiverServer(receiver);
    emulator.setCallbackUrl(app.webhookUrl);
    try {
      const [byWebhook, byPoll, failing, open] = await Promise.all(
        // One user each, so each webhook names one open session (the canary is in every id).
        [1, 2, 3, 4].map((n) => receiver.startVerification({ externalUserId: `${USER}-${n}` })),
      );
      expect(leaks(await kind.dump(store, prefix), delivered)).toEqual([]);

      // A result by webhook, delivered.
      await emulator.completeSession(byWebhook!.token, 'verified');
      await emulator.webhooksSettled();
      // A result by polling: its webhook lost, the service asked.
      emulator.setCallbackUrl(null);
      await emulator.completeSession(byPoll!.token, 'verified');
      expect(await receiver.confirm(byPoll!.token)).toMatchObject({ status: 'verified' });
      emulator.setCallbackUrl(app.webhookUrl);
      // A result whose handler fails: given up at once, a dead letter.
      await emulator.completeSession(failing!.token, 'high_risk');
      await emulator.webhooksSettled();
      // Ours, by a signed webhook to the webhook-only Receiver: a dead letter too.
      const payload = canary.payload({ status: 'failed' });
      await webhookOnly.receive(await signedDelivery(payload, { secret }));

      expect(delivered.map((event) => event.source).sort()).toEqual([
        'poll',
        'webhook',
        'webhook',
        'webhook',
      ]);
      const dump = await kind.dump(store, prefix);
      expect(leaks(dump, delivered)).toEqual([]);
      expect(dump).toContain('fvr2.');
      expect(dump).toMatch(/u1:[A-Za-z0-9_-]{43}/);
      // The inventory in docs/privacy.md: each field is held in the form it says.
      const forms = documentedForms();
      expect(forms.map(({ field }) => field)).toEqual(
        expect.arrayContaining(['`key`', '`token`', '`externalUserId`', '`result`']),
      );
      for (const { field, prefix } of forms)
        expect(dump, `${field} as ${prefix}`).toContain(prefix);

      // The Receiver reads them all: the dead letters opened, the open session found by its id.
      const { deadLetters, sealed } = await receiver.deadLetters.list();
      expect(sealed).toBeUndefined();
      expect(deadLetters.map((letter) => letter.externalUserId).sort()).toEqual([
        USER,
        `${USER}-3`,
      ]);
      expect(deadLetters.map((letter) => letter.data.reason)).toContain(REASON);
      // A result given up keeps no image link, even sealed: its redelivery says it was removed.
      expect(deadLetters.map((letter) => letter.data.frontImageUrl)).toEqual(['', '']);
      expect(deadLetters.map((letter) => letter.frontImage.state)).toEqual(['removed', 'removed']);
      expect(await receiver.confirm(open!.token)).toMatchObject({ status: 'pending' });
      // A dead letter handed back is delivered from its sealed result.
      const ours = deadLetters.find((letter) => letter.data.reason === REASON)!;
      expect(await receiver.deadLetters.redeliver(ours.key)).toBe(true);
      expect(leaks(await kind.dump(store, prefix), delivered)).toEqual([]);
    } finally {
      await receiver.stop();
      await webhookOnly.stop();
      await app.close();
      await emulator.close();
    }
  });
});
