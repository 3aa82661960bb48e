import type { Clock } from './clock.js';

/** Time on the store's clock, as this process reads it: its own clock plus a measured offset. */
export interface StoreTime {
  /** Now on the store's clock (ms since the epoch), from the last measurement. */
  now(): number;
  /**
   * While no reading has succeeded yet, reads the store's clock: resolves once that is done
   * (or failed, when the store is unreachable and the work that waits fails on it anyway).
   * `undefined` once a reading succeeded.
   */
  ready(): Promise<void> | undefined;
  /**
   * The store's clock minus this process's at the last reading, in ms (positive: the store is
   * ahead); `undefined` before one succeeded. What `health()` judges `clock_skew` on now.
   */
  offsetMs(): number | undefined;
}

export interface StoreTimeOptions {
  /** Reads the store server's clock (`Store.readClock`). */
  readClock: () => Promise<number>;
  /** How often the offset is measured again. */
  refreshMs: number;
  /** Told each measurement whose offset is beyond `maxSkewMs` (positive: the store is ahead). */
  onSkew: (offsetMs: number) => void;
  maxSkewMs: number;
}

// A sample whose round trip took longer says little about the offset (its error is up to half
// the round trip): kept only when there is no better one.
const USEFUL_ROUND_TRIP_MS = 2_000;

/**
 * Keeps leases and due times on one clock, the store's, whatever this process's clock says:
 * two instances whose clocks disagree by more than a lease would otherwise both hold it. The
 * store's time is read (Cristian's algorithm: against the middle of the round trip) when first
 * needed and every `refreshMs` after, in the background, and carried forward between readings
 * by the process's monotonic clock, which an NTP step or a changed wall clock does not move. A
 * failed reading keeps the last one.
 */
export function createStoreTime(clock: Clock, options: StoreTimeOptions): StoreTime {
  const elapsed = clock.monotonic ? () => clock.monotonic!() : () => clock.now();
  // The store's time at one moment of the monotonic clock.
  let storeAt = 0;
  let monotonicAt = 0;
  let measuredAt = Number.NEGATIVE_INFINITY;
  let measured = false;
  let offsetMs: number | undefined;
  let measuring: Promise<void> | undefined;
  const measure = async () => {
    const sent = elapsed();
    try {
      const storeNow = await options.readClock();
      const received = elapsed();
      if (!measured || received - sent <= USEFUL_ROUND_TRIP_MS) {
        storeAt = storeNow;
        monotonicAt = (sent + received) / 2;
        measured = true;
        const offset = storeNow + (elapsed() - monotonicAt) - clock.now();
        offsetMs = offset;
        if (Math.abs(offset) > options.maxSkewMs) options.onSkew(offset);
      }
    } catch {
      // The store is unreachable: every call fails now anyway; the last reading stays.
    } finally {
      measuredAt = elapsed();
      measuring = undefined;
    }
  };
  const refresh = () => {
    if (!measuring && elapsed() - measuredAt >= options.refreshMs) {
      measuring = measure();
    }
    return measuring;
  };
  return {
    now() {
      // Before the first reading, nothing is read here: a Receiver made at import time makes
      // no store call until it works.
      if (measuredAt !== Number.NEGATIVE_INFINITY) refresh();
      // Whole milliseconds: stores keep times as integers (PostgreSQL bigint).
      return measured ? Math.round(storeAt + elapsed() - monotonicAt) : clock.now();
    },
    // Until one reading succeeded, nothing is leased on a guess: each caller reads again.
    ready() {
      if (measured) return undefined;
      measuring ??= measure();
      return measuring;
    },
    offsetMs: () => offsetMs,
  };
}
