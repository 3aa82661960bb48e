import { describe, expect, it } from 'vitest';
import { createReceiver, MemoryStore, type ReceiverAlert } from '../../src/index.js';
import { createTestClock } from '../../src/testing/index.js';

// With a store that has a clock (`readClock`), leases follow the store's time, and a process
// clock off by more than `maxClockSkewMs` raises `clock_skew`: once per 15-minute window while
// it stays off, never within the bound. The store's time is read at the first sweep and every
// 30 s after (create-receiver.ts, clock/store-time.ts).

const T0 = Date.UTC(2030, 0, 1);
const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/** A MemoryStore whose server clock is `offsetMs` from the process's (positive: ahead). */
function storeWithClock(now: () => number, offsetMs: number) {
  const store = new MemoryStore();
  return Object.assign(store, { readClock: () => Promise.resolve(now() + offsetMs) });
}

/** The `clock_skew` alerts a Receiver raises over `forMs` of sweeps every 30 s, with when. */
async function skewAlerts(offsetMs: number, forMs = 40 * MINUTE) {
  const clock = createTestClock(T0);
  const receiver = createReceiver({
    secret: 'whsec_clock_skew_0123456789',
    client: false,
    store: storeWithClock(clock.now, offsetMs),
    clock,
    storeClock: true,
    maxClockSkewMs: 10 * SECOND,
    logger: false,
  });
  const alerts: Array<ReceiverAlert & { at: number }> = [];
  receiver.on('alert', (alert) => {
    if (alert.code === 'clock_skew') alerts.push({ ...alert, at: clock.now() - T0 });
  });
  receiver.on('error', () => undefined);
  while (clock.now() - T0 <= forMs) {
    await receiver.sweep();
    await clock.advance(30 * SECOND);
  }
  return alerts;
}

describe('clock_skew', () => {
  it('a store clock ahead by more than maxClockSkewMs raises it once per 15 minutes', async () => {
    const alerts = await skewAlerts(25 * SECOND);
    expect(alerts.map((alert) => alert.at)).toEqual([0, 15 * MINUTE, 30 * MINUTE]);
    expect(alerts[0]!.message).toMatch(/clock is 25\.0 s behind the store's/);
    // Raised on the store's clock: the time the leases follow.
    expect(alerts[0]!.raisedAt.getTime()).toBe(T0 + 25 * SECOND);
  });

  it('a store clock behind by more than maxClockSkewMs raises it the same way', async () => {
    const alerts = await skewAlerts(-25 * SECOND);
    expect(alerts.map((alert) => alert.at)).toEqual([0, 15 * MINUTE, 30 * MINUTE]);
    expect(alerts[0]!.message).toMatch(/clock is 25\.0 s ahead of the store's/);
  });

  it('raises nothing within the bound, either way', async () => {
    expect(await skewAlerts(9 * SECOND, 20 * MINUTE)).toEqual([]);
    expect(await skewAlerts(-9 * SECOND, 20 * MINUTE)).toEqual([]);
  });
});
