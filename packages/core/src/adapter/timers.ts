import { type Clock, systemClock } from '../base/clock/clock.js';

/**
 * The clock the webhook pipeline schedules its body deadlines on (all on one timer, where the
 * platform allows): a test passes `createTestClock()` to decide a deadline without waiting.
 */
export type Timers = Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>;

/** The runtime's own timers (the system clock's). */
export const systemTimers: Timers = systemClock;
