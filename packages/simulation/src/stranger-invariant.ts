import type { Ledger } from './ledger.js';

/** Answers that turn a webhook away for its account, before its signature is checked. */
const TURNED_AWAY = new Set(['account_unavailable', 'account_unknown']);

/**
 * No stranger's request makes a webhook of a real account fail. The resolver of a run knows
 * the real account and never fails, so the only thing that can turn the service's webhook of
 * a tracked session away for its account is what strangers sent before it: requests to
 * made-up account ids that spent the budget of resolver calls, or pushed the account out of
 * the cache, or cached its id as unknown.
 */
export function strangerViolations(ledger: Ledger): string[] {
  return ledger.webhookAnswers
    .filter((answer) => TURNED_AWAY.has(answer.answer))
    .map(
      (answer) =>
        `stranger: the webhook of ${answer.token}, of a real account, was answered ${answer.answer} by instance ${answer.instance}`,
    );
}
