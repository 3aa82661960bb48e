import { ConfigurationError } from '@faceverify/core';
import { generateApiKey, looksLikeJwt } from '../credentials.js';

/**
 * Checks the API keys of one account, or generates one when none are given. `name` is how
 * errors name the setting (`apiKeys`, `accounts[1].apiKeys`).
 *
 * @throws ConfigurationError naming the first bad key.
 */
export function checkApiKeys(keys: readonly string[] | undefined, name: string): string[] {
  if (keys === undefined) return [generateApiKey()];
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new ConfigurationError(`${name} must hold at least one key.`);
  }
  keys.forEach((key, index) => {
    if (typeof key !== 'string' || !/^[\x21-\x7e]+$/.test(key)) {
      throw new ConfigurationError(`${name}[${index}] must be a non-empty string without spaces.`);
    }
    // The emulator refuses JWTs as keys; accepting one here would make that key unusable.
    if (looksLikeJwt(key)) {
      throw new ConfigurationError(
        `${name}[${index}] looks like a JWT, which is never an API key.`,
      );
    }
  });
  if (new Set(keys).size !== keys.length)
    throw new ConfigurationError(`${name} holds a key twice.`);
  return [...keys];
}
