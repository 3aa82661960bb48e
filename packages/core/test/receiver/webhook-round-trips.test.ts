import { expect, it } from 'vitest';
import {
  type Client,
  createReceiver,
  MemoryStore,
  type Receiver,
  type ReceiverResponse,
  type WebhookRequest,
} from '../../src/index.js';
import type {
  AttachAndLeaseOptions,
  AttachAndLeaseOutcome,
  AttachOutcome,
  AttachResultOptions,
  FindByUserOptions,
  InsertOptions,
  InsertOutcome,
  LeaseOptions,
  RememberOptions,
  SettleOptions,
  TrackedSession,
} from '../../src/store/index.js';
import { fixturePayload, signedDelivery } from '../../src/testing/index.js';

const SECRET = 'whsec_webhook_round_trips';

/** The next turn of the event loop: a store across a network answers no sooner. */
const roundTrip = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A MemoryStore that answers each call a turn later, as a network store would, and notes
 * which calls were in flight together: a call's round trip is one more than the latest
 * round trip of any call that had answered before it was made.
 */
class RoundTripStore extends MemoryStore {
  readonly calls: { name: string; trip: number }[] = [];
  /** The hints each call was given: `user` (a record's), `keys` (findByUser's). */
  readonly hints: { name: string; user?: string; keys?: readonly string[] }[] = [];
  private answered = 0;
  failLookup = false;

  /** Counts from here on, from the first round trip. */
  restart(): void {
    this.calls.length = 0;
    this.hints.length = 0;
    this.answered = 0;
  }

  private async traced<T>(
    name: string,
    call: () => Promise<T>,
    hints: { user?: string; keys?: readonly string[] } = {},
  ): Promise<T> {
    const trip = this.answered + 1;
    this.calls.push({ name, trip });
    this.hints.push({ name, ...hints });
    await roundTrip();
    this.answered = Math.max(this.answered, trip);
    return call();
  }

  override remember(options: RememberOptions): Promise<boolean> {
    return this.traced('remember', () => super.remember(options));
  }
  override findByUser(options: FindByUserOptions): Promise<TrackedSession[]> {
    return this.traced(
      'findByUser',
      () =>
        this.failLookup ? Promise.reject(new Error('lookup lost')) : super.findByUser(options),
      options.keys ? { keys: options.keys } : {},
    );
  }
  override attachResult(options: AttachResultOptions): Promise<AttachOutcome> {
    return this.traced('attachResult', () => super.attachResult(options), userOf(options));
  }
  override attachAndLease(options: AttachAndLeaseOptions): Promise<AttachAndLeaseOutcome> {
    return this.traced('attachAndLease', () => super.attachAndLease(options), userOf(options));
  }
  override lease(options: LeaseOptions): Promise<TrackedSession | undefined> {
    return this.traced('lease', () => super.lease(options), userOf(options));
  }
  /** The records inserted, as the store holds them. */
  readonly inserted: TrackedSession[] = [];
  override insert(options: InsertOptions): Promise<InsertOutcome> {
    this.inserted.push(options.record);
    return this.traced('insert', () => super.insert(options));
  }
  override settle(options: SettleOptions): Promise<boolean> {
    return this.traced('settle', () => super.settle(options), userOf(options));
  }
}

const userOf = ({ user }: { user?: string }) => (user === undefined ? {} : { user });

/** The answer to `delivery`, and the rejections nobody handled while it was made. */
async function receiveWatched(
  receiver: Receiver,
  delivery: WebhookRequest,
): Promise<{ answer: ReceiverResponse; unhandled: unknown[] }> {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const answer = await receiver.receive(delivery);
    // Node reports unhandled rejections before it runs the next turn's callbacks.
    await roundTrip();
    return { answer, unhandled };
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
}

/** An API client whose sessions are all pending, for tracking sessions: never asked here. */
const pendingService = {
  createSession: () => Promise.reject(new Error('not used')),
  getSession: async (token: string) => ({ token, status: 'pending', raw: {} }),
  check: async () => {},
} as unknown as Client;

/** A Receiver on a RoundTripStore, one signed webhook for `externalUserId`, and a run count. */
async function setUp(
  externalUserId: string,
  {
    extra = {},
    store = new RoundTripStore(),
    client = false,
    options = {},
  }: {
    extra?: object;
    store?: RoundTripStore;
    client?: Client | false;
    options?: { lookUpClearUserIds?: boolean };
  } = {},
) {
  const receiver = createReceiver({ secret: SECRET, client, store, ...options });
  receiver.on('error', () => {});
  const runs = { count: 0 };
  receiver.on('verification.completed', () => {
    runs.count += 1;
  });
  const delivery = await signedDelivery(
    fixturePayload({ external_user_id: externalUserId, extra: { ...extra } }),
    { secret: SECRET },
  );
  // The Receiver derives its token keys when it is made (Web Crypto, on the thread pool): the
  // first webhook of a process, arriving before they are ready, waits for them once. These
  // tests count the trips of every webhook after that one, another user's, answered first.
  const warm = await signedDelivery(
    fixturePayload({ external_user_id: `${externalUserId}_warm` }),
    {
      secret: SECRET,
    },
  );
  if ((await receiver.receive(warm)).status !== 200) throw new Error('the warm-up was refused');
  store.restart();
  runs.count = 0;
  return { store, receiver, delivery, runs };
}

it('an accepted webhook matched to no session waits for three store round trips: its digest is remembered while its user is looked up', async () => {
  const { store, receiver, delivery, runs } = await setUp('u_round_trips');

  const answer = await receiver.receive(delivery);

  expect(answer.status).toBe(200);
  expect(runs.count).toBe(1);
  // The user is looked up once, under the keyed hash of the id (the id as it is, of records
  // written before ids were hashed, only with `lookUpClearUserIds`: see the test below).
  expect(store.calls).toEqual([
    { name: 'findByUser', trip: 1 },
    { name: 'remember', trip: 1 },
    { name: 'insert', trip: 2 },
    { name: 'settle', trip: 3 },
  ]);
});

it('with lookUpClearUserIds, the user is also looked up by the id in clear, in the same round trip', async () => {
  const { store, receiver, delivery, runs } = await setUp('u_clear_too', {
    options: { lookUpClearUserIds: true },
  });

  expect((await receiver.receive(delivery)).status).toBe(200);
  expect(runs.count).toBe(1);
  expect(store.calls).toEqual([
    { name: 'findByUser', trip: 1 },
    { name: 'findByUser', trip: 1 },
    { name: 'remember', trip: 1 },
    { name: 'insert', trip: 2 },
    { name: 'settle', trip: 3 },
  ]);
});

it('a replay is acknowledged without reading the lookup made beside it, and that lookup failing escapes nowhere', async () => {
  const { store, receiver, delivery, runs } = await setUp('u_replayed');
  expect((await receiver.receive(delivery)).status).toBe(200);
  store.failLookup = true;

  const { answer, unhandled } = await receiveWatched(receiver, delivery);

  expect(unhandled).toEqual([]);
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.body)).toEqual({ received: true, duplicate: true });
  expect(runs.count).toBe(1);
  expect(store.calls.slice(4).map(({ name }) => name)).toEqual(['findByUser', 'remember']);
});

it('a new webhook whose lookup fails is answered 503 and forgotten, so the sender’s retry is handled', async () => {
  const { store, receiver, delivery, runs } = await setUp('u_lookup_lost');
  store.failLookup = true;

  const { answer, unhandled } = await receiveWatched(receiver, delivery);

  expect(unhandled).toEqual([]);
  expect(answer.status).toBe(503);
  expect(JSON.parse(answer.body).error).toBe('store_unavailable');
  expect(runs.count).toBe(0);

  store.failLookup = false;
  expect((await receiver.receive(delivery)).status).toBe(200);
  expect(runs.count).toBe(1);
});

it('a webhook naming its tracked session waits for three store round trips: attached and leased in one call, each naming the user the store holds the record under', async () => {
  const { store, receiver, delivery, runs } = await setUp('u_tracked', {
    extra: { session_token: 'tok_tracked' },
    client: pendingService,
  });
  await receiver.track('tok_tracked', 'u_tracked');
  const [stored] = store.inserted;
  store.restart();

  const answer = await receiver.receive(delivery);

  expect(answer.status).toBe(200);
  expect(runs.count).toBe(1);
  expect(store.calls).toEqual([
    { name: 'findByUser', trip: 1 },
    { name: 'remember', trip: 1 },
    { name: 'attachAndLease', trip: 2 },
    { name: 'settle', trip: 3 },
  ]);
  // The stored user id (a keyed hash) and the stored key, as the store gave them on insert.
  const user = stored!.externalUserId;
  expect(user).toMatch(/^u1:/);
  expect(store.hints).toEqual([
    { name: 'findByUser', keys: [stored!.key] },
    { name: 'remember' },
    { name: 'attachAndLease', user },
    { name: 'settle', user },
  ]);
});

it('on a store without attachAndLease, a webhook of a tracked session is attached, then leased: one round trip more', async () => {
  const store = new RoundTripStore();
  // An instance property hides the method: a store that never had it.
  Object.defineProperty(store, 'attachAndLease', { value: undefined });
  const { receiver, delivery, runs } = await setUp('u_two_calls', {
    extra: { session_token: 'tok_two_calls' },
    store,
    client: pendingService,
  });
  await receiver.track('tok_two_calls', 'u_two_calls');
  store.restart();

  const answer = await receiver.receive(delivery);

  expect(answer.status).toBe(200);
  expect(runs.count).toBe(1);
  expect(store.calls).toEqual([
    { name: 'findByUser', trip: 1 },
    { name: 'remember', trip: 1 },
    { name: 'attachResult', trip: 2 },
    { name: 'lease', trip: 3 },
    { name: 'settle', trip: 4 },
  ]);
});
