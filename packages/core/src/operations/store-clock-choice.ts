import type { Clock } from '../base/clock/clock.js';
import type { Log } from '../base/logging/logger.js';
import type { Store } from '../store/store.js';

/**
 * Whether leases and due times follow the store's clock (`storeClock`): whenever the store has
 * one, unless the `clock` is a test's (`movedByTest`), whose time follows no real clock, or
 * `storeClock: false` says otherwise. A `clock` option that follows real time (a logging or
 * tracing wrapper, a clock of the platform) keeps the protection: it is no reason to let two
 * instances whose clocks disagree both hold a lease, unwatched by `clock_skew`. Turned off, it
 * is said: in the log here, and in `health().clock.leases` (`process`).
 */
export function followsStoreClock(
  store: Pick<Store, 'readClock'> | undefined,
  clock: Clock,
  option: boolean | undefined,
  log: Log,
): boolean {
  if (typeof store?.readClock !== 'function') return false;
  if (option === true) return true;
  if (option === false) {
    log.warn(
      "storeClock is false: leases and due times follow this process's clock, so instances whose clocks disagree by more than a lease may both deliver one result, and clock_skew is not watched. Leave storeClock unset unless the clock is a test's.",
    );
    return false;
  }
  if (!clock.movedByTest) return true;
  log.info(
    "Leases and due times follow the test clock given as the clock option, not the store's clock; clock_skew is not watched.",
  );
  return false;
}
