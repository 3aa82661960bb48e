import { ConfigurationError } from '../../base/errors.js';

/** A webhook signing secret with a name an operator recognises, e.g. `{ label: '2026-q4', secret }`. */
export interface LabeledSecret {
  secret: string;
  label: string;
}

/** One secret, or several during a rotation (in the order of its current step). */
export type WebhookSecrets = string | ReadonlyArray<string | LabeledSecret>;

/**
 * Normalises secrets to labelled form. Unlabelled secrets are named by position
 * (`secret#0` is the first, the newest), which is what a log can safely show. Empty entries
 * are skipped (a trailing comma in a list); a secret of whitespace only is refused with a
 * `ConfigurationError`, because it is a template or a copy that went wrong, and anyone could
 * sign with it.
 */
export function normalizeSecrets(secrets: WebhookSecrets): LabeledSecret[] {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  const out: LabeledSecret[] = [];
  list.forEach((entry, index) => {
    const item = typeof entry === 'string' ? { secret: entry, label: `secret#${index}` } : entry;
    if (typeof item.secret !== 'string' || item.secret.length === 0) return;
    if (item.secret.trim() === '') {
      throw new ConfigurationError(
        `The webhook signing secret ${item.label} is only whitespace. Copy the signing secret from the service's Settings into FACEVERIFY_WEBHOOK_SECRET (or the \`secret\` option) without surrounding quotes or spaces.`,
      );
    }
    out.push(item);
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
      `No webhook signing secret configured. Set ${source} (comma-separated during a rotation) or pass \`secret\` to createReceiver(). The secret is in the service's Settings.`,
    );
  }
  return normalized;
}
