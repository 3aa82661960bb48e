import { ConfigurationError } from '../base/errors.js';
import { fetchExchange, type HttpExchange } from './exchange.js';
import type * as HttpExchangeContract from './http-exchange.js';

/** The runtime's `fetch`: on Workers, Deno, Bun and in browsers, the one HTTP client there is. */
export function defaultExchange(): HttpExchange {
  const fetchImpl = globalThis.fetch;
  if (typeof fetchImpl !== 'function') {
    throw new ConfigurationError('No fetch in this runtime: pass the fetch option.');
  }
  return fetchExchange(fetchImpl);
}

({ defaultExchange }) satisfies typeof HttpExchangeContract;
