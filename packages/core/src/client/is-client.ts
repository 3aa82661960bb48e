import type { Client } from './types.js';

/**
 * Whether an option given as "a client, or options to build one" is a client already: the
 * Receiver's `client` option and each account's.
 */
export function isClient(value: unknown): value is Client {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Client).getSession === 'function' &&
    typeof (value as Client).createSession === 'function'
  );
}
