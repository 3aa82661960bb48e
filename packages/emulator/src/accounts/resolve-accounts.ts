import { ConfigurationError } from '@faceverify/core';
import { generateSigningSecret } from '../credentials.js';
import type { EmulatorAccountOptions, EmulatorOptions } from '../options.js';
import { checkApiKeys } from './api-keys.js';
import { checkCallbackUrl } from './callback-url.js';
import { checkSigningSecret } from './signing-secret.js';

/** One account with its defaults applied and checked. */
export interface AccountConfig {
  id: string;
  apiKeys: readonly string[];
  signingSecret: string;
  callbackUrl: string | null;
}

/** Id of the one account that the single-account options (`apiKeys`…) describe. */
export const DEFAULT_ACCOUNT_ID = 'default';

const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const SINGLE_ACCOUNT_OPTIONS = ['apiKeys', 'signingSecret', 'callbackUrl'] as const;
const ACCOUNT_FIELDS = ['id', 'apiKeys', 'signingSecret', 'callbackUrl'];

/** The secret given, checked, or a generated one when none is. */
function signingSecretOrNew(secret: string | undefined, name: string): string {
  return secret === undefined ? generateSigningSecret() : checkSigningSecret(secret, name);
}

function checkAccount(entry: EmulatorAccountOptions, index: number): AccountConfig {
  const name = `accounts[${index}]`;
  if (typeof entry !== 'object' || entry === null) {
    throw new ConfigurationError(`${name} must be an object such as { id: 'acme' }.`);
  }
  const unknown = Object.keys(entry).find((field) => !ACCOUNT_FIELDS.includes(field));
  if (unknown !== undefined) {
    throw new ConfigurationError(
      `${name} has an unknown field "${unknown}"; an account takes ${ACCOUNT_FIELDS.join(', ')}.`,
    );
  }
  if (typeof entry.id !== 'string' || !ACCOUNT_ID.test(entry.id)) {
    throw new ConfigurationError(
      `${name}.id must be 1 to 64 letters, digits, "_" or "-", such as "acme"; ` +
        `got ${JSON.stringify(entry.id)}.`,
    );
  }
  return {
    id: entry.id,
    apiKeys: checkApiKeys(entry.apiKeys, `${name}.apiKeys`),
    signingSecret: signingSecretOrNew(entry.signingSecret, `${name}.signingSecret`),
    callbackUrl: checkCallbackUrl(entry.callbackUrl, `${name}.callbackUrl`),
  };
}

/** A key names its account when a request comes in, so no two accounts may share one. */
function checkDistinct(accounts: readonly AccountConfig[]): void {
  const ids = new Set<string>();
  const keyOwners = new Map<string, string>();
  accounts.forEach((account, index) => {
    if (ids.has(account.id)) {
      throw new ConfigurationError(
        `accounts[${index}].id "${account.id}" is given twice: give each account its own id.`,
      );
    }
    ids.add(account.id);
    for (const key of account.apiKeys) {
      const owner = keyOwners.get(key);
      if (owner !== undefined) {
        throw new ConfigurationError(
          `accounts[${index}] ("${account.id}") has an API key of account "${owner}": a key ` +
            'belongs to one account, give each account its own keys (or leave them out to ' +
            'have them generated).',
        );
      }
      keyOwners.set(key, account.id);
    }
  });
}

function declaredAccounts(accounts: readonly EmulatorAccountOptions[]): AccountConfig[] {
  if (!Array.isArray(accounts) || accounts.length === 0) {
    throw new ConfigurationError(
      'accounts must hold at least one account, such as [{ id: "acme" }]; leave it out for ' +
        `one account named "${DEFAULT_ACCOUNT_ID}".`,
    );
  }
  const resolved = accounts.map(checkAccount);
  checkDistinct(resolved);
  return resolved;
}

/**
 * The accounts the emulator serves: those of the `accounts` option, or the one account
 * (`default`) that `apiKeys`, `signingSecret` and `callbackUrl` describe.
 *
 * @throws ConfigurationError naming the option to fix, including when both ways are used.
 */
export function resolveAccounts(options: EmulatorOptions): readonly AccountConfig[] {
  if (options.accounts === undefined) {
    return [
      {
        id: DEFAULT_ACCOUNT_ID,
        apiKeys: checkApiKeys(options.apiKeys, 'apiKeys'),
        signingSecret: signingSecretOrNew(options.signingSecret, 'signingSecret'),
        callbackUrl: checkCallbackUrl(options.callbackUrl),
      },
    ];
  }
  const mixed = SINGLE_ACCOUNT_OPTIONS.filter((option) => options[option] !== undefined);
  if (mixed.length > 0) {
    throw new ConfigurationError(
      `accounts cannot be given with ${mixed.join(', ')}, which describe a single account: ` +
        `set them inside each account instead, e.g. accounts: [{ id: "acme", ${mixed[0]}: … }].`,
    );
  }
  return declaredAccounts(options.accounts);
}
