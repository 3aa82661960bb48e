import type { Log } from '../../base/logging/logger.js';
import type { LabeledSecret } from './secrets.js';

/** Secrets shorter than this (in UTF-8 bytes) are accepted, with a warning. */
export const MIN_SECRET_BYTES = 16;

const encoder = new TextEncoder();

/**
 * Warns once, at configuration, about secrets short enough to guess. They are accepted,
 * because a secret is whatever the service issued and test fixtures use short ones; the
 * warning names their labels, never the secrets.
 */
export function warnAboutShortSecrets(secrets: readonly LabeledSecret[], log: Log): void {
  const short = secrets.filter(
    ({ secret }) => encoder.encode(secret).byteLength < MIN_SECRET_BYTES,
  );
  if (short.length === 0) return;
  log.warn(
    `Webhook signing secret shorter than ${MIN_SECRET_BYTES} bytes: anyone who guesses it can sign webhooks. Use the full secret from the service's Settings.`,
    { labels: short.map(({ label }) => label) },
  );
}
