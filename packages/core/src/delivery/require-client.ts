import { ENV, readEnv } from '../base/config/env.js';
import { ConfigurationError } from '../base/errors.js';
import type { Client } from '../client/index.js';

/**
 * The Receiver's client, or a `ConfigurationError` that names the unset variables: without
 * one, starting sessions, confirming and polling cannot work, and must not fail later as a 500.
 */
export function requireClient(context: { client: Client | undefined }, action: string): Client {
  if (!context.client) {
    const unset = [ENV.apiKey, ENV.baseUrl].filter((name) => readEnv(name) === undefined);
    const reason =
      unset.length > 0 ? `: ${unset.join(' and ')} ${unset.length > 1 ? 'are' : 'is'} not set` : '';
    throw new ConfigurationError(
      `${action} needs the API client, and this Receiver has none${reason}. Set ${ENV.apiKey} and ${ENV.baseUrl}, or pass \`client: { apiKey, baseUrl }\` to createReceiver().`,
    );
  }
  return context.client;
}
