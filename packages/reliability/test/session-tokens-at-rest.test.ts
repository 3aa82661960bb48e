import {
  createClient,
  createReceiver,
  type Receiver,
  type VerificationCompletedEvent,
} from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import { createTestClock } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { sealedTokenCount, tokenLeaks } from '@faceverify/test-support';
import { describe, expect, it } from 'vitest';
import { type ReceiverServer, startReceiverServer } from './support/receiver-server.js';
import { type StoreKind, useStoreKinds } from './support/store-dumps.js';

// Issue #18, item 5: session tokens at rest. The hosted session token alone completes a
// session in the browser, so the service keeps it hashed; our stores kept it in clear, and
// whoever read a backup, a replica or the Redis keyspace could complete every pending
// session. The guarantee, as docs/security.md states it: a dump of any store holds no
// session token in any encoding, while the session is open and after it closed; an open
// session's token is held only sealed (AES-256-GCM), a closed one's not at all.

const kinds = useStoreKinds();

interface Setup {
  emulator: Emulator;
  receiver: Receiver;
  app: ReceiverServer;
  store: Store;
  delivered: VerificationCompletedEvent[];
  clock: ReturnType<typeof createTestClock>;
}

async function setUp(
  kind: StoreKind,
  prefix: string,
  store?: Store,
  options: { lookUpClearUserIds?: boolean } = {},
): Promise<Setup> {
  const emulator = await startEmulator({ seed: `tokens-${prefix}` });
  const clock = createTestClock(Date.now());
  const used = store ?? (await kind.make(prefix));
  const receiver = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
    store: used,
    clock,
    logger: false,
    ...options,
  });
  const delivered: VerificationCompletedEvent[] = [];
  receiver.on('verification.completed', (event) => {
    delivered.push(event);
  });
  const app = await startReceiverServer(receiver);
  emulator.setCallbackUrl(app.webhookUrl);
  return { emulator, receiver, app, store: used, delivered, clock };
}

async function tearDown({ emulator, receiver, app }: Setup) {
  await receiver.stop();
  await app.close();
  await emulator.close();
}

describe.each(kinds)('session tokens at rest ($name)', (kind) => {
  it(`a dump after sessions were started holds no token; after they closed, not even sealed [${kind.name}]`, async () => {
    const prefix = `rest_${kind.id}`;
    const setup = await setUp(kind, prefix);
    const { emulator, receiver, store, delivered, clock } = setup;
    try {
      const started = await Promise.all(
        ['alice', 'bob', 'carol'].map((user) =>
          receiver.startVerification({ externalUserId: user }),
        ),
      );
      const tokens = started.map(({ token }) => token);
      const open = await kind.dump(store, prefix);
      expect(tokenLeaks(open, tokens)).toEqual([]);
      expect(sealedTokenCount(open)).toBe(3);

      // Still worked on as before: confirm() finds each session, and results are delivered
      // with the token the Receiver opened from the store.
      expect((await receiver.confirm(tokens[0]!)).status).toBe('pending');
      await emulator.completeSession(tokens[0]!, 'verified');
      await emulator.completeSession(tokens[1]!, 'high_risk');
      await emulator.webhooksSettled();
      const outcomes = delivered.map((event) => `${event.sessionToken} ${event.data.status}`);
      expect(outcomes.sort()).toEqual([`${tokens[0]} verified`, `${tokens[1]} failed`].sort());
      // Past the time confirm() shares one answer, so this one reads the store again.
      await clock.advance(2_001);
      expect(await receiver.confirm(tokens[0]!)).toMatchObject({ status: 'verified' });

      const partly = await kind.dump(store, prefix);
      expect(tokenLeaks(partly, tokens)).toEqual([]);
      // The closed sessions' sealed tokens were dropped; carol's is still there to poll.
      expect(sealedTokenCount(partly)).toBe(1);

      await emulator.completeSession(tokens[2]!, 'verified');
      await emulator.webhooksSettled();
      expect(delivered.map((event) => event.sessionToken).sort()).toEqual([...tokens].sort());
      const closed = await kind.dump(store, prefix);
      expect(tokenLeaks(closed, tokens)).toEqual([]);
      expect(sealedTokenCount(closed)).toBe(0);
    } finally {
      await tearDown(setup);
    }
  });

  it(`a session recorded before tokens were protected (keyed by its token) is still found and delivered [${kind.name}]`, async () => {
    const prefix = `legacy_${kind.id}`;
    const store = await kind.make(prefix);
    // Upgraded from a version that kept user ids in clear: its webhook finds the record by user.
    const setup = await setUp(kind, prefix, store, { lookUpClearUserIds: true });
    const { emulator, receiver, delivered, clock } = setup;
    try {
      // As the previous version wrote it: the token as the key and in clear.
      const client = createClient({ apiKey: emulator.apiKey, baseUrl: emulator.url });
      const { token } = await client.createSession({ externalUserId: 'dave' });
      const now = Date.now();
      await store.insert({
        record: {
          key: token,
          token,
          externalUserId: 'dave',
          createdAt: now,
          expiresAt: now + 30 * 60_000,
          state: 'pending',
          dueAt: now + 60_000,
          attempts: 0,
        },
        now,
      });

      expect((await receiver.confirm(token)).status).toBe('pending');
      await emulator.completeSession(token, 'verified');
      await emulator.webhooksSettled();
      expect(delivered.map((event) => [event.sessionToken, event.data.status])).toEqual([
        [token, 'verified'],
      ]);
      const record = await store.get({ key: token, now: Date.now() });
      expect(record?.state).toBe('completed');
      // Closing drops the clear token field too; the key stays until its retention ends.
      expect(record?.token).toBeUndefined();
      await clock.advance(2_001);
      expect(await receiver.confirm(token)).toMatchObject({ status: 'verified' });
    } finally {
      await tearDown(setup);
    }
  });
});
