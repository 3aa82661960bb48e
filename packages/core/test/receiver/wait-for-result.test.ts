import { describe, expect, it } from 'vitest';
import {
  createReceiver,
  MemoryStore,
  type Receiver,
  resultEvents,
  returnPage,
} from '../../src/index.js';
import type { ClosedRecordListener, Store } from '../../src/store/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

const SECRET = 'whsec_wait_for_result_0123456789';
const TOKEN = 'tok_wait_for_result_1';

/** A MemoryStore that counts the listeners it has, and can hide `watchClosed` (as D1 has none). */
function countingStore(options: { watch: boolean }) {
  const inner = new MemoryStore();
  let listeners = 0;
  let reads = 0;
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'get') {
        return (...args: Parameters<MemoryStore['get']>) => {
          reads += 1;
          return target.get(...args);
        };
      }
      if (property === 'watchClosed') {
        if (!options.watch) return undefined;
        return (listener: ClosedRecordListener) => {
          listeners += 1;
          const remove = target.watchClosed(listener);
          return () => {
            listeners -= 1;
            remove();
          };
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Store;
  return { store, listeners: () => listeners, reads: () => reads };
}

// track() needs a client; nothing here asks the service (webhooks are not confirmed), so
// its address is one that nothing listens on.
const CLIENT = { apiKey: 'fv_test_wait_for_result', baseUrl: 'http://127.0.0.1:9' };

function instance(store: Store, clock = createTestClock()): Receiver {
  return createReceiver({
    secret: SECRET,
    client: CLIENT,
    confirmWebhooks: false,
    store,
    logger: false,
    clock,
  }).on('verification.completed', () => undefined);
}

async function deliverWebhook(receiver: Receiver, status: 'verified' | 'failed' = 'verified') {
  const answer = await receiver.receive(
    await signedDelivery(fixturePayload({ external_user_id: 'wanda', status }), {
      secret: SECRET,
    }),
  );
  expect(answer.status).toBe(200);
}

describe('receiver.waitForResult', () => {
  it('resolves with the result delivered by another instance sharing the store, and leaves no listener', async () => {
    const { store, listeners } = countingStore({ watch: true });
    const a = instance(store);
    const b = instance(store);
    await b.track(TOKEN, 'wanda');
    const waiting = a.waitForResult(TOKEN);
    await expect.poll(listeners).toBe(1);
    await deliverWebhook(b);
    await expect(waiting).resolves.toMatchObject({
      state: 'completed',
      source: 'webhook',
      result: { status: 'verified', external_user_id: 'wanda' },
    });
    expect(listeners()).toBe(0);
  });

  it('answers at once for a session already delivered, and unknown for a token not tracked', async () => {
    const { store } = countingStore({ watch: true });
    const receiver = instance(store);
    await receiver.track(TOKEN, 'wanda');
    await deliverWebhook(receiver, 'failed');
    await expect(receiver.waitForResult(TOKEN)).resolves.toMatchObject({
      state: 'completed',
      result: { status: 'failed' },
    });
    await expect(receiver.waitForResult('tok_never_started')).resolves.toEqual({
      state: 'unknown',
    });
    await expect(receiver.waitForResult('../admin')).resolves.toEqual({ state: 'unknown' });
  });

  it('resolves pending when timeoutMs passes on the Receiver clock, and leaves no listener', async () => {
    const clock = createTestClock();
    const { store, listeners } = countingStore({ watch: true });
    const receiver = instance(store, clock);
    await receiver.track(TOKEN, 'wanda');
    const waiting = receiver.waitForResult(TOKEN, { timeoutMs: 10_000 });
    await expect.poll(listeners).toBe(1);
    await clock.advance(9_999);
    expect(listeners()).toBe(1);
    await clock.advance(1);
    await expect(waiting).resolves.toEqual({ state: 'pending' });
    expect(listeners()).toBe(0);
  });

  it('rejects with the reason when its signal aborts, and leaves no listener', async () => {
    const { store, listeners } = countingStore({ watch: true });
    const receiver = instance(store);
    await receiver.track(TOKEN, 'wanda');
    const controller = new AbortController();
    const waiting = receiver.waitForResult(TOKEN, { signal: controller.signal });
    await expect.poll(listeners).toBe(1);
    controller.abort(new Error('the page went away'));
    await expect(waiting).rejects.toThrow('the page went away');
    expect(listeners()).toBe(0);
  });

  it('reads the store again every second where the store tells no one what it closed (D1)', async () => {
    const clock = createTestClock();
    const { store, reads } = countingStore({ watch: false });
    const a = instance(store, clock);
    const b = instance(store, clock);
    await b.track(TOKEN, 'wanda');
    let outcome: unknown;
    const waiting = a.waitForResult(TOKEN).then((value) => {
      outcome = value;
    });
    // Its first read and the one as it starts waiting, both before the delivery.
    await expect.poll(reads).toBe(2);
    await deliverWebhook(b);
    await clock.advance(999);
    expect(outcome).toBeUndefined();
    await clock.advance(1);
    await waiting;
    expect(outcome).toMatchObject({ state: 'completed' });
  });
});

describe('waitForResult of a session whose user started a newer one', () => {
  const NEWER = 'tok_wait_for_result_newer';

  /** A webhook that names its session (a token field), so no service is asked. */
  async function webhookOf(receiver: Receiver, token: string, status: 'verified' | 'failed') {
    const payload = fixturePayload({ external_user_id: 'wanda', status, extra: { token } });
    await receiver.receive(await signedDelivery(payload, { secret: SECRET }));
  }

  /** Two sessions of one user, the second started a second later and passed first. */
  async function newerPassedFirst(supersededResults: 'deliver' | 'skip') {
    const clock = createTestClock();
    const receiver = createReceiver({
      secret: SECRET,
      client: CLIENT,
      store: new MemoryStore(),
      logger: false,
      clock,
      supersededResults,
    }).on('verification.completed', () => undefined);
    await receiver.track(TOKEN, 'wanda');
    await clock.advance(1_000);
    await receiver.track(NEWER, 'wanda');
    await webhookOf(receiver, NEWER, 'verified');
    return receiver;
  }

  it("with 'skip', resolves superseded, and the page's events say so without the result", async () => {
    const receiver = await newerPassedFirst('skip');
    const waiting = receiver.waitForResult(TOKEN);
    const events = resultEvents(receiver, TOKEN).text();
    await webhookOf(receiver, TOKEN, 'failed');
    await expect(waiting).resolves.toEqual({
      state: 'superseded',
      source: 'webhook',
      result: expect.objectContaining({ status: 'failed' }),
    });
    expect(await events).toBe(
      'retry: 1000\n\n' +
        'event: state\ndata: {"state":"pending"}\n\n' +
        'event: state\ndata: {"state":"superseded"}\n\n',
    );
    await expect(receiver.waitForResult(NEWER)).resolves.toMatchObject({
      state: 'completed',
      superseded: false,
    });
  });

  it("with 'deliver', resolves completed, superseded: true", async () => {
    const receiver = await newerPassedFirst('deliver');
    const waiting = receiver.waitForResult(TOKEN);
    await webhookOf(receiver, TOKEN, 'failed');
    await expect(waiting).resolves.toMatchObject({ state: 'completed', superseded: true });
  });

  it('the return page of a superseded result says a newer verification was started', () => {
    const page = returnPage({ status: 'failed', superseded: true }, TOKEN);
    expect(page).toContain('A newer verification has been started since this one.');
    expect(returnPage({ status: 'failed' }, TOKEN)).not.toContain('newer verification');
  });
});

describe('resultEvents: the session state as Server-Sent Events', () => {
  it('sends pending, then the outcome without the result fields, and ends', async () => {
    const { store } = countingStore({ watch: true });
    const receiver = instance(store);
    await receiver.track(TOKEN, 'wanda');
    const response = resultEvents(receiver, TOKEN);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = response.text();
    await deliverWebhook(receiver);
    expect(await text).toBe(
      'retry: 1000\n\n' +
        'event: state\ndata: {"state":"pending"}\n\n' +
        'event: state\ndata: {"state":"completed","status":"verified"}\n\n',
    );
  });

  it('stops waiting when the page goes away: the listener is removed', async () => {
    const { store, listeners } = countingStore({ watch: true });
    const receiver = instance(store);
    await receiver.track(TOKEN, 'wanda');
    const response = resultEvents(receiver, TOKEN);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await expect.poll(listeners).toBe(1);
    await reader.cancel();
    await expect.poll(listeners).toBe(0);
  });
});
