import { readFileSync } from 'node:fs';
import { type AccountConfig, ConfigurationError } from '@faceverify/core';

/**
 * The accounts of a JSON file: an object from account id to the account's API key and webhook
 * signing secret, as the service's Settings (or the emulator's banner) show them. A secret may
 * be a list, newest first, while it is rotated. It stands in for wherever a platform keeps its
 * customers' credentials (a secret manager, an encrypted table).
 *
 * @example
 * // accounts.json
 * // {
 * //   "acme": { "apiKey": "fv_test_…", "webhookSecret": "whsec_…" },
 * //   "globex": { "apiKey": "fv_test_…", "webhookSecret": ["whsec_new…", "whsec_old…"] }
 * // }
 * createReceiver({ accounts: readAccountsFile('accounts.json') });
 */
export function readAccountsFile(path: string): Record<string, AccountConfig> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigurationError(
      `Could not read the accounts file ${path} (ACCOUNTS_FILE): ${(error as Error).message}. Write it as the example's README shows, with each account's API key and signing secret.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigurationError(`The accounts file ${path} is not JSON.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigurationError(
      `The accounts file ${path} must hold an object from account id to { "apiKey", "webhookSecret" }.`,
    );
  }
  const accounts: Record<string, AccountConfig> = {};
  for (const [id, entry] of Object.entries(parsed)) {
    const { apiKey, webhookSecret } = (entry ?? {}) as Record<string, unknown>;
    const secrets = Array.isArray(webhookSecret) ? webhookSecret : [webhookSecret];
    if (typeof apiKey !== 'string' || !secrets.every((secret) => typeof secret === 'string')) {
      throw new ConfigurationError(
        `Account "${id}" of ${path} needs "apiKey" and "webhookSecret" strings (webhookSecret may be a list, newest first).`,
      );
    }
    // The base URL is FACEVERIFY_BASE_URL's, as for a Receiver of one account.
    accounts[id] = { secret: secrets as string[], client: { apiKey } };
  }
  return accounts;
}
