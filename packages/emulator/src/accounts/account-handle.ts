import type { Account } from './accounts.js';
import { checkCallbackUrl } from './callback-url.js';
import { checkSigningSecret } from './signing-secret.js';

/** One account of a running emulator: its credentials, and where its webhooks go now. */
export interface EmulatorAccountInfo {
  /** The id given in the `accounts` option; `default` for the single-account options. */
  readonly id: string;
  /** The account's first API key. */
  readonly apiKey: string;
  /** Every API key of the account, each with its own rate limit. */
  readonly apiKeys: readonly string[];
  /** The secret the account's webhooks are signed with now. */
  readonly signingSecret: string;
  /** Where the account's webhooks go now, or `null` when none are sent. */
  readonly callbackUrl: string | null;
}

/**
 * An account of a running emulator, whose webhooks can be sent elsewhere and signed with a
 * new secret.
 *
 * @example
 * const acme = emulator.account('acme');
 * acme.setCallbackUrl('http://127.0.0.1:3001/webhooks/verification');
 * await emulator.createSession({ externalUserId: 'user-42', apiKey: acme.apiKey });
 */
export interface EmulatorAccount extends EmulatorAccountInfo {
  /**
   * Sends this account's webhooks of completions from now on to `url`; `null` sends none.
   * @throws ConfigurationError when `url` is not an absolute http(s) URL.
   */
  setCallbackUrl(url: string | null): void;
  /**
   * Signs this account's webhooks with `secret` from now on, as the service does once its
   * Settings switch to a new secret: the way to rehearse a rotation (docs/security.md). A
   * webhook already signed (one held back by a delay fault) keeps the old signature.
   * @throws ConfigurationError when `secret` is empty.
   */
  setSigningSecret(secret: string): void;
}

/** The public face of `account`: its settings read live, and checked on change. */
export function accountHandle(account: Account): EmulatorAccount {
  return Object.freeze({
    id: account.id,
    apiKey: account.apiKeys[0] ?? '',
    apiKeys: account.apiKeys,
    get signingSecret() {
      return account.signingSecret;
    },
    get callbackUrl() {
      return account.callbackUrl;
    },
    setCallbackUrl(url: string | null) {
      account.callbackUrl = checkCallbackUrl(url);
    },
    setSigningSecret(secret: string) {
      account.signingSecret = checkSigningSecret(secret);
    },
  });
}
