import { describe, expect, it } from 'vitest';
import { createReceiver, MemoryStore, type ReceiverOptions } from '../../src/index.js';
import { TokenProtectingStore } from '../../src/store/sealed/token-protecting-store.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';
import { type ReceivedRequest, startScriptedServer } from '../client/scripted-server.js';

// receiver.forgetUser on a real MemoryStore, with the service played by a real HTTP server
// and webhooks signed as the service signs them: erasure removes every record of the user,
// and nothing that arrives afterwards (a webhook sent again, a new one, a delivery that was in
// flight) brings a record back.

const SECRET = 'whsec_forget_user_0123456789';
const ALICE = 'erased_alice';
const BOB = 'kept_bob';

/** Every line logged, with its fields, as one text: what must never name the erased user. */
function capturingLogger() {
  const lines: string[] = [];
  const write = (message: string, fields?: Record<string, unknown>) => {
    lines.push(`${message} ${JSON.stringify(fields ?? {})}`);
  };
  return {
    logger: { debug: write, info: write, warn: write, error: write },
    text: () => lines.join('\n'),
  };
}

const { event: _event, extra: _extra, ...VERIFIED } = fixturePayload({ external_user_id: ALICE });

/** The service: tok_alice_1 is verified, every other session still pending. */
function service(request: ReceivedRequest) {
  const token = decodeURIComponent(request.url.split('/').pop() ?? '');
  const user = token.includes('alice') ? ALICE : BOB;
  return token === 'tok_alice_1'
    ? {
        status: 200,
        json: { token, status: 'verified', external_user_id: user, result: VERIFIED },
      }
    : { status: 200, json: { token, status: 'pending', external_user_id: user } };
}

describe('receiver.forgetUser', () => {
  it('removes every record of the user (a dead letter, an open session) and no one else’s; later webhooks bring none back', async () => {
    const clock = createTestClock();
    const api = await startScriptedServer(service, clock.now);
    const store = new MemoryStore();
    // The store holds ids as keyed hashes: look through the protection the Receiver applies.
    const view = new TokenProtectingStore(store, [SECRET]);
    const logs = capturingLogger();
    const receiver = createReceiver({
      secret: SECRET,
      client: { apiKey: 'fv_test_forget_user', baseUrl: api.url },
      store,
      clock,
      logger: logs.logger,
      maxDeliveryAttempts: 1,
    });
    const delivered: string[] = [];
    receiver.on('verification.completed', (event) => {
      delivered.push(event.data.external_user_id);
      throw new Error('the users table is locked');
    });
    receiver.on('verification.undeliverable', () => undefined);
    receiver.on('error', () => undefined);
    try {
      // Alice's first session: its webhook is confirmed with the service, its handler fails
      // on its only attempt, and the result becomes a dead letter.
      await receiver.track('tok_alice_1', ALICE);
      const first = await signedDelivery(fixturePayload({ external_user_id: ALICE }), {
        secret: SECRET,
      });
      expect((await receiver.receive(first)).status).toBe(500);
      expect(delivered).toEqual([ALICE]);
      expect((await receiver.deadLetters.list()).deadLetters).toHaveLength(1);
      // A second session of hers, still open; and one of Bob's.
      await receiver.track('tok_alice_2', ALICE);
      await receiver.track('tok_bob_1', BOB);
      const now = clock.now();
      expect(await view.findByUser({ externalUserId: ALICE, now, limit: 50 })).toHaveLength(2);

      expect(await receiver.forgetUser(ALICE)).toEqual({ removed: 2 });

      expect(await view.findByUser({ externalUserId: ALICE, now, limit: 50 })).toEqual([]);
      expect((await receiver.deadLetters.list()).deadLetters).toEqual([]);
      expect(await store.counts({ now })).toMatchObject({ pending: 1, failed: 0 });
      expect(await view.findByUser({ externalUserId: BOB, now, limit: 50 })).toHaveLength(1);
      // Her tokens are no longer tracked: answered without asking the service.
      const asked = api.requests.length;
      expect(await receiver.confirm('tok_alice_2')).toEqual({ status: 'unknown' });
      expect(await receiver.waitForResult('tok_alice_1', { timeoutMs: 10 })).toMatchObject({
        state: 'unknown',
      });
      expect(api.requests.length).toBe(asked);

      // The webhook received before, sent again: a replay, acknowledged and not stored.
      const replay = await receiver.receive(first);
      expect(JSON.parse(replay.body)).toEqual({ received: true, duplicate: true });
      // A new webhook of hers matches no tracked session: untracked, neither stored nor
      // delivered (untrackedWebhooks: 'ignore', the default with an API client).
      const later = await signedDelivery(
        fixturePayload({ external_user_id: ALICE, extra: { attempt: 'later' } }),
        { secret: SECRET },
      );
      const answer = await receiver.receive(later);
      expect(JSON.parse(answer.body)).toEqual({ received: true, untracked: true });
      expect(delivered).toEqual([ALICE]);
      expect(await view.findByUser({ externalUserId: ALICE, now: clock.now(), limit: 50 })).toEqual(
        [],
      );
      // Nothing of hers is left to poll: the sweep asks about Bob's session alone.
      await clock.advance(60 * 60_000);
      const before = api.requests.length;
      await receiver.sweep();
      expect(api.requests.slice(before).map((request) => request.url)).toEqual([
        '/v1/sessions/tok_bob_1',
      ]);

      expect(await receiver.forgetUser(ALICE)).toEqual({ removed: 0 });
      expect(logs.text()).toContain("A user's records were erased.");
      expect(logs.text()).not.toContain(ALICE);
    } finally {
      await api.close();
    }
  });

  it('a delivery in flight when the user is erased loses its record, writes nothing back, and says so', async () => {
    const clock = createTestClock();
    const store = new MemoryStore();
    const view = new TokenProtectingStore(store, [SECRET]);
    const logs = capturingLogger();
    const receiver = createReceiver({
      secret: SECRET,
      client: false,
      store,
      clock,
      logger: logs.logger,
    });
    let release!: () => void;
    const handlerRunning = new Promise<void>((running) => {
      receiver.on('verification.completed', () => {
        running();
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      });
    });
    const delivery = await signedDelivery(fixturePayload({ external_user_id: ALICE }), {
      secret: SECRET,
    });
    const answering = receiver.receive(delivery);
    await handlerRunning;
    // The webhook's worker holds the lease and runs the handler; the user is erased meanwhile.
    expect(await receiver.forgetUser(ALICE)).toEqual({ removed: 1 });
    release();
    const answer = await answering;
    // The handler had it, so it was delivered; its success could not be recorded, as the
    // record is gone, and stays gone. Nobody else will deliver it: never answered "queued".
    expect(JSON.parse(answer.body)).toEqual({ received: true });
    expect(logs.text()).toContain(
      "A result was delivered while its user's records were being erased (forgetUser): erase again what your handlers stored for that user.",
    );
    expect(logs.text()).not.toContain('another worker delivers');
    const now = clock.now();
    expect(await view.findByUser({ externalUserId: ALICE, now, limit: 50 })).toEqual([]);
    expect(await store.counts({ now })).toEqual({
      pending: 0,
      delivering: 0,
      completed: 0,
      expired: 0,
      failed: 0,
    });
    await clock.advance(60 * 60_000);
    expect(await receiver.sweep()).toMatchObject({ leased: 0 });
  });

  it('a webhook-only Receiver delivers a later new webhook of an erased user as a new result', async () => {
    // Without an API client nothing is tracked, so every signed webhook is delivered: one sent
    // after the erasure is the service's new word on the user, not an erased record.
    const store = new MemoryStore();
    const receiver = createReceiver({ secret: SECRET, client: false, store, logger: false });
    const delivered: string[] = [];
    receiver.on('verification.completed', (event) => {
      delivered.push(event.data.external_user_id);
    });
    const first = await signedDelivery(fixturePayload({ external_user_id: ALICE }), {
      secret: SECRET,
    });
    await receiver.receive(first);
    expect(await receiver.forgetUser(ALICE)).toEqual({ removed: 0 });
    expect(JSON.parse((await receiver.receive(first)).body)).toEqual({
      received: true,
      duplicate: true,
    });
    const later = await signedDelivery(
      fixturePayload({ external_user_id: ALICE, extra: { attempt: 'later' } }),
      { secret: SECRET },
    );
    await receiver.receive(later);
    expect(delivered).toEqual([ALICE, ALICE]);
  });

  it('refuses an id no store could hold, without repeating it', async () => {
    const receiver = createReceiver({
      secret: SECRET,
      client: false,
      store: new MemoryStore(),
      logger: false,
    } satisfies ReceiverOptions);
    await expect(receiver.forgetUser('')).rejects.toThrow(TypeError);
    const lone = 'secret_name_\ud800';
    const refused = await receiver.forgetUser(lone).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as Error).message).not.toContain('secret_name');
  });
});
