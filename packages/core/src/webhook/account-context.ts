import type { Account } from '../accounts/account-directory.js';
import type { Decided } from './answers.js';
import type { WebhookContext } from './webhook-context.js';

// One context per account object: a refreshed account (new secrets) is a new object.
const contexts = new WeakMap<WebhookContext, WeakMap<Account, WebhookContext>>();

/**
 * The context a request is decided in: the Receiver's own, or on a Receiver of several
 * accounts, the one of the account the request names (its secrets, its client), or the row
 * that refuses it before anything is verified. Only a resolver's account is looked up at a
 * bounded pace: strangers posting to made-up ids spend the budget, not the resolver.
 */
export async function accountContext(
  context: WebhookContext,
  accountId: string | undefined,
): Promise<WebhookContext | Decided> {
  const { accounts } = context;
  if (!accounts) return context;
  if (accountId === undefined || accountId === '') return { name: 'account_missing' };
  let found: Awaited<ReturnType<typeof accounts.find>>;
  try {
    const finding = accounts.find(accountId);
    found = finding instanceof Promise ? await finding : finding;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    context.handlers.reportError(error, { stage: 'account' });
    return { name: 'account_unavailable', logFields: { error: message } };
  }
  if (found === 'busy') return { name: 'account_unavailable', logFields: { budget: 'spent' } };
  if (!found) return { name: 'account_unknown' };
  let byAccount = contexts.get(context);
  if (!byAccount) {
    byAccount = new WeakMap();
    contexts.set(context, byAccount);
  }
  let scoped = byAccount.get(found);
  if (!scoped) {
    scoped = { ...context, secrets: [...found.secrets], client: found.client, account: found.id };
    byAccount.set(found, scoped);
  }
  return scoped;
}
