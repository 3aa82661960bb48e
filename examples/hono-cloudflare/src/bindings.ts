import { createReceiver, MemoryStore, type Receiver } from '@faceverify/core';

/**
 * The Worker's bindings. Put the secret and the key with `wrangler secret put`, the base URL
 * in wrangler.toml's [vars]. Typed as optional because a binding can be missing: the Receiver
 * then names it in its error.
 */
export interface Bindings {
  FACEVERIFY_WEBHOOK_SECRET?: string;
  FACEVERIFY_API_KEY?: string;
  FACEVERIFY_BASE_URL?: string;
  /** Comma-separated delays in milliseconds between polls of a pending session. */
  FACEVERIFY_POLL_SCHEDULE_MS?: string;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * A Receiver configured from the bindings. Workers have no process environment, so every
 * setting is passed explicitly instead of read from `FACEVERIFY_*` variables.
 */
export function receiverFromBindings(env: Bindings): Receiver {
  const pollScheduleMs = list(env.FACEVERIFY_POLL_SCHEDULE_MS).map(Number);
  return createReceiver({
    // Several secrets, newest first, during a rotation.
    secret: list(env.FACEVERIFY_WEBHOOK_SECRET),
    client: { apiKey: env.FACEVERIFY_API_KEY, baseUrl: env.FACEVERIFY_BASE_URL },
    // An isolate's memory: enough for one isolate, as in `wrangler dev`. Deployed, requests and
    // cron events run in many isolates: give them a shared Store (see docs/edge.md).
    store: new MemoryStore(),
    ...(pollScheduleMs.length > 0 ? { pollScheduleMs } : {}),
  });
}
