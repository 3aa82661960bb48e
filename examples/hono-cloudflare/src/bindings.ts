import { type D1Database, D1Store } from '@faceverify/cloudflare';
import { createReceiver, type Receiver } from '@faceverify/core';

/**
 * The Worker's bindings. Put the secret and the key with `wrangler secret put`, the base URL
 * in wrangler.toml's [vars], the D1 database under [[d1_databases]]. Typed as optional where a
 * binding can be missing: the Receiver then names it in its error.
 */
export interface Bindings {
  /** Shared by every isolate: tracked sessions survive isolates, deploys and restarts. */
  DB: D1Database;
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
    // Several secrets during a rotation, in the order of its current step.
    secret: list(env.FACEVERIFY_WEBHOOK_SECRET),
    client: { apiKey: env.FACEVERIFY_API_KEY, baseUrl: env.FACEVERIFY_BASE_URL },
    // Requests and cron events run in many isolates: D1 is what they share, so the isolate
    // whose cron event comes next finds the session a webhook was lost for.
    store: new D1Store({ db: env.DB }),
    ...(pollScheduleMs.length > 0 ? { pollScheduleMs } : {}),
  });
}
