import type { Log } from '../base/logging/logger.js';
import type { ActivityWindow } from './activity-window.js';

/** What noting a webhook verified with an older secret works with. */
export interface OlderSecretContext {
  activity: ActivityWindow;
  log: Log;
  account?: string | undefined;
}

/**
 * A webhook verified with a secret other than the first listed: the service still signs with
 * it (or resends what it signed with it), so the rotation is not finished. Counted for
 * `health().webhooks.olderSecret`, and logged as a notice (which the default logger prints)
 * once per window while it goes on: what an operator watches to know when to remove it.
 */
export function noteOlderSecret(context: OlderSecretContext, label: string): void {
  context.activity.record('older_secret', undefined, context.account);
  if (!context.activity.firstInWindow('older_secret')) return;
  context.log.notice(
    'Webhooks are verified with an older secret; the rotation is not finished. Remove it once health().webhooks.olderSecret stays 0 for a session lifetime after the service signs with the new one.',
    { matchedLabel: label, ...(context.account === undefined ? {} : { account: context.account }) },
  );
}
