import type {
  Account,
  AccountDirectory,
  AccountEvidence,
} from '../../accounts/account-directory.js';
import { checkExternalUserId } from '../../client/external-user-id.js';
import { COMPLETED_EVENT, decodeJson } from '../../wire/payload/parse.js';
import type { Happened } from './answers.js';
import { type HeadersLike, readHeader, SIGNATURE_HEADER } from './headers.js';
import type { UnreadBody } from './unread-body.js';
import type { WebhookContext } from './webhook-context.js';

// One context per account object: a refreshed account (new secrets) is a new object.
const contexts = new WeakMap<WebhookContext, WeakMap<Account, WebhookContext>>();

/** What of a request can show that the account it names is real (see `evidenceOf`). */
export interface AccountRequest {
  headers: HeadersLike;
  body: Uint8Array | UnreadBody;
}

/**
 * On a Receiver of several accounts, the context a request is decided in: the one of the
 * account the request names (its secrets, its client), or what refuses it before anything is
 * verified (none named, none found, none to be had now). Only a resolver's account is looked
 * up at a bounded pace: strangers posting to made-up ids spend the budget, not the resolver,
 * and never turn away an account the store holds a session of (`request`, see `evidenceOf`).
 */
export function accountContext(
  context: WebhookContext,
  accounts: AccountDirectory,
  accountId: string | undefined,
  request?: AccountRequest,
): WebhookContext | Happened | Promise<WebhookContext | Happened> {
  if (accountId === undefined || accountId === '') return { outcome: 'no-account' };
  // Where the store could not be read for evidence, it is the store that failed the request.
  const reading: StoreReading = {};
  let finding: ReturnType<AccountDirectory['find']>;
  try {
    finding = accounts.find(accountId, request && evidenceOf(context, request, accountId, reading));
  } catch (error) {
    return resolverFailed(context, error);
  }
  // A cached account (every account of a map) is chosen without waiting a turn.
  return finding instanceof Promise
    ? finding.then(
        (found) =>
          found === 'busy' && 'error' in reading
            ? storeFailed(context, reading.error)
            : chosen(context, found),
        (error: unknown) => resolverFailed(context, error),
      )
    : chosen(context, finding);
}

/** The store's failure while evidence was looked for, if it failed. */
interface StoreReading {
  error?: unknown;
}

/**
 * Whether the store holds a session of the account a request names, for the user its body
 * names: open, or closed and still kept (a late webhook of a result polling delivered). Then
 * the account is real, and its webhook is not to be turned away for a budget strangers spent.
 * Only a signed body that reads as a `verification.completed` is worth the store's read;
 * anyone can send one, so this costs at most one read a request, and only where the answer
 * would otherwise be a refusal.
 */
function evidenceOf(
  context: Pick<WebhookContext, 'store' | 'now' | 'maxBodyBytes'>,
  request: AccountRequest,
  account: string,
  reading: StoreReading,
): AccountEvidence | undefined {
  const { body } = request;
  if (!(body instanceof Uint8Array) || body.byteLength > context.maxBodyBytes) return undefined;
  if (!readHeader(request.headers, SIGNATURE_HEADER)?.trim()) return undefined;
  return async () => {
    let user: unknown;
    try {
      const json = decodeJson(body) as { event?: unknown; external_user_id?: unknown } | null;
      if (json?.event !== COMPLETED_EVENT) return false;
      user = json.external_user_id;
      checkExternalUserId(user, 'evidence');
    } catch {
      return false;
    }
    try {
      const records = await context.store.findByUser({
        externalUserId: user as string,
        account,
        now: context.now(),
        limit: 1,
      });
      return records.length > 0;
    } catch (error) {
      reading.error = error;
      return false;
    }
  };
}

/** What the directory found, as the context the request is decided in, or its refusal. */
function chosen(
  context: WebhookContext,
  found: Awaited<ReturnType<AccountDirectory['find']>>,
): WebhookContext | Happened {
  if (found === 'busy') {
    // Told in health: requests naming ids not known to be accounts were turned away.
    context.activity.record('account_budget_spent');
    return { outcome: 'busy', logFields: { budget: 'spent' } };
  }
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

function storeFailed(context: WebhookContext, error: unknown): Happened {
  context.handlers.reportError(error, { stage: 'store' });
  return { outcome: 'store-failed', logFields: { error: messageOf(error) } };
}

function resolverFailed(context: WebhookContext, error: unknown): Happened {
  context.handlers.reportError(error, { stage: 'account' });
  return { outcome: 'resolver-failed', logFields: { error: messageOf(error) } };
}

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
