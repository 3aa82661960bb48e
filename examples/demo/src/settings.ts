/**
 * The emulator's limit on `POST /v1/verify` during the demo: 10 per second instead of the
 * service's 60 per minute, so that a burst past it takes seconds instead of minutes.
 */
export const VERIFY_LIMIT = { limit: 10, windowMs: 1_000 } as const;

/**
 * Polls of a pending session, from its start (default 1, 1, 2, 5 min): short enough to watch
 * a lost webhook being recovered, and the first one late enough that a webhook arriving
 * normally (step 2) is never raced by a poll.
 */
export const POLL_SCHEDULE_MS = [3_000, 1_000, 2_000] as const;

/** How often the receiver's timer sweeps for due sessions (default 5 s). */
export const SWEEP_INTERVAL_MS = 200;
