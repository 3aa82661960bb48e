import type { Account, AccountDirectory } from '../accounts/account-directory.js';
import type { Happened } from './answers.js';
import type { WebhookContext } from './webhook-context.js';

// One context per account object: a refreshed account (new secrets) is a new object.
const contexts = new WeakMap<WebhookContext, WeakMap<Account, WebhookContext>>();

/**
 * On a Receiver of several accounts, the context a request is decided in: the one of the
 * account the request names (its secrets, its client), or what refuses it before anything is
 * verified (none named, none found, none to be had now). Only a resolver's account is looked
 * up at a bounded pace: strangers posting to made-up ids spend the budget, not the resolver.
 */
export function accountContext(
  context: WebhookContext,
  accounts: AccountDirectory,
  accountId: string | undefined,
): WebhookContext | Happened | Promise<WebhookContext | Happened> {
  if (accountId === undefined || accountId === '') return { outcome: 'no-account' };
  let finding: ReturnType<AccountDirectory['find']>;
  try {
    finding = accounts.find(accountId);
  } catch (error) {
    return resolverFailed(context, error);
  }
  // A cached account (every account of a map) is chosen without waiting a turn.
  return finding instanceof Promise
    ? finding.then(
        (found) => chosen(context, found),
        (error: unknown) => resolverFailed(context, error),
      )
    : chosen(context, finding);
}

/** What the directory found, as the context the request is decided in, or its refusal. */
function chosen(
  context: WebhookContext,
  found: Awaited<ReturnType<AccountDirectory['find']>>,
): WebhookContext | Happened {
  if (found === 'busy') return { outcome: 'busy', logFields: { budget: 'spent' } };
  if (!found) return { outcome: 'unknown-account' };
  let byAccount = contexts.get(context);
  if (!byAccount) {
    byAccount = new WeakMap();
    contexts.set(context, byAccount);
  }
  let scoped = byAccount.get(found);
  if (!scoped) {
    scoped = Object.assign({}, context, {
      secrets: [...found.secrets],
      client: found.client,
      account: found.id,
    });
    byAccount.set(found, scoped);
  }
  return scoped;
}

function resolverFailed(context: WebhookContext, error: unknown): Happened {
  const message = error instanceof Error ? error.message : String(error);
  context.handlers.reportError(error, { stage: 'account' });
  return { outcome: 'resolver-failed', logFields: { error: message } };
}
