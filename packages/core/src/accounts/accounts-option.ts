import type { Client, ClientOptions } from '../client/index.js';
import type { WebhookSecrets } from '../wire/signature/secrets.js';

/**
 * One account of the service: its webhook signing secret(s) and its API client. Each account
 * has its own callback URL, so its webhooks arrive on a path of their own
 * (`/webhooks/verification/:account`) and are verified with its secrets only.
 *
 * @example
 * const live: AccountConfig = {
 *   secret: process.env.LIVE_WEBHOOK_SECRET!,
 *   client: { apiKey: process.env.LIVE_API_KEY! }, // baseUrl: FACEVERIFY_BASE_URL
 * };
 */
export interface AccountConfig {
  /** The account's webhook signing secret(s), newest first during a rotation. */
  secret: WebhookSecrets;
  /**
   * The account's API client, or options to build one: its `apiKey`, and `baseUrl` when it
   * is not `FACEVERIFY_BASE_URL`. The service's rate limits are per key, so each account is
   * paced on its own.
   */
  client: Client | ClientOptions;
}

/**
 * Accounts resolved when first needed, for a platform whose customers bring their own
 * account (secrets kept in a secret manager). Resolved accounts are cached; ids that arrive on
 * the webhook path and are not cached are resolved at a bounded pace, so a stranger posting
 * to made-up ids cannot make the Receiver call `resolve` at their pace.
 *
 * @example
 * createReceiver({
 *   tokenKeys: [process.env.FACEVERIFY_TOKEN_KEY!],
 *   accounts: {
 *     resolve: async (id) => {
 *       const tenant = await db.tenants.find(id);
 *       return tenant && { secret: tenant.webhookSecret, client: { apiKey: tenant.apiKey } };
 *     },
 *   },
 * });
 */
export interface AccountResolver {
  /**
   * The account's configuration, or `undefined` when there is no such account. Called once
   * per id at a time; a rejection is answered `503 account_unavailable` on the webhook path
   * and retried at the next need.
   */
  resolve(accountId: string): AccountConfig | undefined | Promise<AccountConfig | undefined>;
  /** Accounts (and unknown ids) kept in memory, least recently used dropped first. Default 1000. */
  cacheSize?: number;
  /**
   * After this long a cached account is resolved again in the background (and used as it was
   * meanwhile), so a rotated secret or key reaches the Receiver without a restart; an unknown
   * id is asked again after it too. Default 5 minutes.
   */
  refreshAfterMs?: number;
  /**
   * Calls of `resolve` per minute for ids that arrive on the webhook path and are not known to
   * be accounts (an unknown id asked about again after `refreshAfterMs` included); beyond it
   * such requests are answered `503 account_unavailable` (the polling fallback recovers the
   * result of a real one) and `account_budget_spent` is raised. Ids `resolve` answered with an
   * account, ids of records the Receiver stored, and ids a webhook names while the store holds
   * a session of them (open, or closed and still kept) are never limited: requests to made-up
   * ids spend this budget, not the one real accounts' webhooks need. Default 60.
   */
  maxResolvesPerMinute?: number;
}

/**
 * The `accounts` option: a fixed map from account id to its configuration, or a resolver.
 * Account ids are 1 to 64 letters, digits, `_` or `-`.
 */
export type AccountsOption = Readonly<Record<string, AccountConfig>> | AccountResolver;
