import { ConfigurationError } from '../errors.js';

/** A webhook signing secret with a name an operator recognises, e.g. `{ label: '2026-q4', secret }`. */
export interface LabeledSecret {
  secret: string;
  label: string;
}

/** One secret, or several during a rotation (newest first). */
export type WebhookSecrets = string | ReadonlyArray<string | LabeledSecret>;

/**
 * Normalises secrets to labelled form. Unlabelled secrets are named by position
 * (`secret#0` is the first, the newest), which is what a log can safely show.
 */
export function normalizeSecrets(secrets: WebhookSecrets): LabeledSecret[] {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  const out: LabeledSecret[] = [];
  list.forEach((entry, index) => {
    const item = typeof entry === 'string' ? { secret: entry, label: `secret#${index}` } : entry;
    if (typeof item.secret === 'string' && item.secret.length > 0) out.push(item);
  });
  return out;
}

/**
 * Secrets for a Receiver: at least one non-empty secret is required, and the error names
 * where it should come from.
 */
export function requireSecrets(
  secrets: WebhookSecrets | undefined,
  source: string,
): LabeledSecret[] {
  const normalized = secrets === undefined ? [] : normalizeSecrets(secrets);
  if (normalized.length === 0) {
    throw new ConfigurationError(
      `No webhook signing secret configured. Set ${source} (comma-separated for rotation, newest first) or pass \`secret\` to createReceiver(). The secret is in the service's Settings.`,
    );
  }
  return normalized;
}
