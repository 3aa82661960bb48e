import { ConfigurationError } from '@faceverify/core';

/**
 * Checks a signing secret given at start or switched to while running: any non-empty string,
 * as the service's Settings may issue. `name` is how the error names the setting
 * (`signingSecret`, `accounts[1].signingSecret`).
 *
 * @throws ConfigurationError otherwise.
 */
export function checkSigningSecret(secret: unknown, name = 'signingSecret'): string {
  if (typeof secret !== 'string' || secret === '') {
    throw new ConfigurationError(`${name} must not be empty.`);
  }
  return secret;
}
