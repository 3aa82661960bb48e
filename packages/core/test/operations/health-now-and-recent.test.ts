import { describe, expect, it } from 'vitest';
import { type Clock, createReceiver, MemoryStore, type ReceiverAlert } from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

// health() says what is wrong now (`reasons`) and what went wrong within the window
// (`recent`): a store that recovered is no reason any more, though it stays recent; a clock
// that stays off stays a reason after its once-per-window alarm.

const SECRET = 'whsec_health_now_0123456789';
const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/** A MemoryStore with a server clock `offset.ms` from the process's, that fails while `down`. */
class ClockedStore extends MemoryStore {
  down = false;
  constructor(
    private readonly processNow: () => number,
    readonly offset = { ms: 0 },
  ) {
    super();
  }
  readClock(): Promise<number> {
    return Promise.resolve(this.processNow() + this.offset.ms);
  }
  override async counts(options: Parameters<MemoryStore['counts']>[0]) {
    if (this.down) throw new Error('store down');
    return super.counts(options);
  }
  override async remember(options: Parameters<MemoryStore['remember']>[0]) {
    if (this.down) throw new Error('store down');
    return super.remember(options);
  }
}

function setUp(options: { offsetMs?: number; clock?: Clock } = {}) {
  const testClock = createTestClock();
  const store = new ClockedStore(testClock.now, { ms: options.offsetMs ?? 0 });
  const logged: string[] = [];
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store,
    clock: options.clock ?? testClock,
    ...(options.clock ? {} : { storeClock: true }),
    logger: { info: (message) => logged.push(message) },
  });
  receiver.on('error', () => undefined);
  const alerts: ReceiverAlert[] = [];
  receiver.on('alert', (alert) => {
    alerts.push(alert);
  });
  return { receiver, store, clock: testClock, alerts, logged };
}

describe('health(): reasons are what is wrong now, recent what went wrong in the window', () => {
  it('clock_skew stays a reason while the clock stays off, and leaves it once it is back', async () => {
    const { receiver, store, clock, alerts } = setUp({ offsetMs: 25 * SECOND });
    await receiver.sweep();
    for (let minute = 0; minute < 20; minute++) {
      const health = await receiver.health();
      expect(health.reasons).toEqual(['clock_skew']);
      expect(health.status).toBe('degraded');
      expect(health.clock).toEqual({ leases: 'store', offsetMs: 25 * SECOND });
      await clock.advance(MINUTE);
      await receiver.sweep();
    }
    // Raised once per window meanwhile: at 0 and at 15 minutes.
    expect(alerts.filter((alert) => alert.code === 'clock_skew')).toHaveLength(2);
    store.offset.ms = 0;
    await clock.advance(31 * SECOND);
    await receiver.sweep();
    const health = await receiver.health();
    expect(health.reasons).toEqual([]);
    expect(health.status).toBe('ok');
    expect(health.recent).toEqual(['clock_skew']);
  });

  it('store_unavailable is a reason while the store fails, and only recent once it answers', async () => {
    const { receiver, store } = setUp();
    store.down = true;
    const delivery = await signedDelivery(fixturePayload({ external_user_id: 'u_down' }), {
      secret: SECRET,
    });
    expect((await receiver.receive(delivery)).status).toBe(503);
    let health = await receiver.health();
    expect(health.reasons).toEqual(['store_unavailable']);
    expect(health.status).toBe('failing');
    expect(health.recent).toEqual(['store_unavailable']);
    store.down = false;
    health = await receiver.health();
    expect(health.reasons).toEqual([]);
    expect(health.status).toBe('ok');
    expect(health.ready).toBe(true);
    expect(health.recent).toEqual(['store_unavailable']);
  });

  it('store_slow is a reason while health() itself waits on the store, then only recent', async () => {
    const { receiver, store, clock } = setUp();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const counts = store.counts.bind(store);
    store.counts = async (options) => {
      await gate;
      return counts(options);
    };
    const reading = receiver.health();
    await clock.advance(6 * SECOND);
    release();
    let health = await reading;
    expect(health.reasons).toEqual(['store_slow']);
    expect(health.recent).toEqual(['store_slow']);
    store.counts = counts;
    health = await receiver.health();
    expect(health.reasons).toEqual([]);
    expect(health.status).toBe('ok');
    expect(health.recent).toEqual(['store_slow']);
    await clock.advance(16 * MINUTE);
    expect((await receiver.health()).recent).toEqual([]);
  });
});

describe('a clock option keeps the store clock unless it is a test clock', () => {
  it('a clock that follows real time keeps leases on the store clock, and clock_skew', async () => {
    const test = createTestClock();
    // A clock of the application's (a wrapper around the real one, say): not a test clock.
    const own: Clock = {
      now: () => test.now(),
      setTimeout: (callback, ms) => test.setTimeout(callback, ms),
      clearTimeout: (handle) => test.clearTimeout(handle),
    };
    const store = new ClockedStore(test.now, { ms: 65 * SECOND });
    const receiver = createReceiver({
      secret: SECRET,
      client: false,
      store,
      clock: own,
      logger: false,
    });
    const alerts: string[] = [];
    receiver.on('alert', (alert) => {
      alerts.push(alert.code);
    });
    receiver.on('error', () => undefined);
    await receiver.sweep();
    expect(alerts).toEqual(['clock_skew']);
    const health = await receiver.health();
    expect(health.clock).toEqual({ leases: 'store', offsetMs: 65 * SECOND });
    expect(health.reasons).toEqual(['clock_skew']);
  });

  it('a test clock turns it off, and says so', async () => {
    const clock = createTestClock();
    const store = new ClockedStore(clock.now, { ms: 65 * SECOND });
    const logged: string[] = [];
    const receiver = createReceiver({
      secret: SECRET,
      client: false,
      store,
      clock,
      logger: { info: (message) => logged.push(message) },
    });
    await receiver.sweep();
    expect((await receiver.health()).clock).toEqual({ leases: 'process', offsetMs: null });
    expect(logged).toContain(
      "Leases and due times follow the test clock given as the clock option, not the store's clock; clock_skew is not watched.",
    );
  });
});
