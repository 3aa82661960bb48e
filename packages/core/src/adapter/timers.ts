import { type Clock, systemClock } from '../clock/clock.js';

/**
 * The timer functions the webhook pipeline schedules its body deadline with: the timer half
 * of a `Clock`, so a test passes `createTestClock()` to decide a deadline without waiting.
 */
export type Timers = Pick<Clock, 'setTimeout' | 'clearTimeout'>;

/** The runtime's own timers (the system clock's). */
export const systemTimers: Timers = systemClock;
