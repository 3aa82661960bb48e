import { ConfigurationError } from '@faceverify/core';
import { isHttpUrl } from '../http-url.js';
import { isLinkLocalHost } from '../link-local.js';

/**
 * Checks a callback URL: an absolute http(s) URL that is not link-local, or `null` for none.
 * `name` is how the error names the setting (`callbackUrl`, `accounts[1].callbackUrl`).
 *
 * @throws ConfigurationError otherwise.
 */
export function checkCallbackUrl(
  value: string | null | undefined,
  name = 'callbackUrl',
): string | null {
  if (value === undefined || value === null) return null;
  if (!isHttpUrl(value)) {
    throw new ConfigurationError(`${name} must be an absolute http or https URL.`);
  }
  if (isLinkLocalHost(new URL(value).hostname)) {
    throw new ConfigurationError(
      `${name} must not be a link-local address (169.254.0.0/16, fe80::/10): those hold ` +
        'cloud metadata services. Use the address of your webhook receiver.',
    );
  }
  return value;
}
