import { defaultExchange } from '#http-exchange';
import { type Clock, systemClock } from '../base/clock/clock.js';
import { ENV, readEnv } from '../base/config/env.js';
import { assertKnownOptions } from '../base/config/known-options.js';
import { ConfigurationError } from '../base/errors.js';
import { createLog, type Log } from '../base/logging/logger.js';
import { assertApiKey } from './api-key-guard.js';
import { fetchExchange, type HttpExchange } from './exchange.js';
import type { ClientOptions } from './types.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RETRIES = 3;
// The service allows 60 `POST /v1/verify` per minute per key, in a sliding window.
const DEFAULT_CREATE_SESSIONS_PER_MINUTE = 60;
const DEFAULT_PACE_WINDOW_MS = 60_000;

/** Client options with every default applied and checked. */
export interface ResolvedClientOptions {
  apiKey: string;
  /** Origin and path of the base URL, without a trailing slash, so paths can be appended. */
  baseUrl: string;
  exchange: HttpExchange;
  clock: Clock;
  timeoutMs: number;
  maxRetries: number;
  createSessionsPerMinute: number;
  paceWindowMs: number;
  log: Log;
}

function resolveApiKey(option: string | undefined): string {
  const source = option === undefined ? ENV.apiKey : 'the apiKey option';
  const apiKey = option ?? readEnv(ENV.apiKey);
  if (apiKey === undefined || apiKey === '') {
    throw new ConfigurationError(
      `No API key: pass the apiKey option or set ${ENV.apiKey}. Without a process environment (Cloudflare Workers), pass it from the bindings: \`client: { apiKey: env.${ENV.apiKey} }\`.`,
    );
  }
  assertApiKey(apiKey, source);
  return apiKey;
}

function parseHttpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

// Names and addresses that never leave this machine, where the local emulator runs.
function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127\.\d+\.\d+\.\d+$/.test(hostname)
  );
}

function resolveBaseUrl(option: string | undefined, allowInsecureHttp: boolean): string {
  const value = option ?? readEnv(ENV.baseUrl);
  if (value === undefined || value === '') {
    throw new ConfigurationError(
      `No base URL: pass the baseUrl option or set ${ENV.baseUrl}. Without a process environment (Cloudflare Workers), pass it from the bindings: \`client: { baseUrl: env.${ENV.baseUrl} }\`.`,
    );
  }
  const url = parseHttpUrl(value);
  if (!url) {
    throw new ConfigurationError(
      `The base URL (baseUrl option or ${ENV.baseUrl}) must be an absolute http(s) URL.`,
    );
  }
  // The API key travels in every request's Authorization header: over plain http anyone on
  // the path reads it. The host is named, never the whole URL, which may hold credentials.
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !allowInsecureHttp) {
    throw new ConfigurationError(
      `The base URL (baseUrl option or ${ENV.baseUrl}) uses plain http to ${url.hostname}, so ` +
        'your API key would cross the network unencrypted. Use https://. Plain http is ' +
        'accepted on this machine (localhost, 127.0.0.1, [::1]) for the local emulator; for an ' +
        'emulator in another container of a private network, pass allowInsecureHttp: true.',
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  // Every path the client requests starts with /v1: a base URL ending in it would send
  // POST /v1/v1/verify, which the service answers 404.
  if (/\/v1$/i.test(path)) {
    throw new ConfigurationError(
      `The base URL (baseUrl option or ${ENV.baseUrl}) ends in /v1, but the client adds /v1 to every path itself (POST /v1/verify). Set ${ENV.baseUrl} to ${url.origin}${path.slice(0, -3)}, without /v1.`,
    );
  }
  return `${url.origin}${path}`;
}

/** Checks a duration or rate option; per-call options are checked with it too. */
export function positiveNumber(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigurationError(`${name} must be a positive number, got ${value}.`);
  }
  return value;
}

function count(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigurationError(`${name} must be an integer of at least ${min}, got ${value}.`);
  }
  return value;
}

function resolveExchange(option: typeof fetch | undefined): HttpExchange {
  if (option === undefined) return defaultExchange();
  if (typeof option !== 'function') {
    throw new ConfigurationError(`"fetch" must be a function like fetch, got ${typeof option}.`);
  }
  return fetchExchange(option);
}

// A record, not a list, so that the compiler insists on every option of ClientOptions.
export const CLIENT_OPTIONS: Record<keyof ClientOptions, true> = {
  apiKey: true,
  baseUrl: true,
  fetch: true,
  timeoutMs: true,
  maxRetries: true,
  createSessionsPerMinute: true,
  paceWindowMs: true,
  dangerouslyAllowBrowser: true,
  allowInsecureHttp: true,
  logger: true,
  clock: true,
};

/** Applies defaults (credentials from the environment) and refuses anything unusable. */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  assertKnownOptions('createClient()', options, Object.keys(CLIENT_OPTIONS), {
    key: '"apiKey"',
    url: '"baseUrl"',
    secret: 'the `secret` option of createReceiver() (the client does not verify webhooks)',
  });
  return {
    apiKey: resolveApiKey(options.apiKey),
    baseUrl: resolveBaseUrl(options.baseUrl, options.allowInsecureHttp === true),
    exchange: resolveExchange(options.fetch),
    clock: options.clock ?? systemClock,
    timeoutMs: positiveNumber('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS),
    maxRetries: count('maxRetries', options.maxRetries, DEFAULT_MAX_RETRIES, 0),
    createSessionsPerMinute: count(
      'createSessionsPerMinute',
      options.createSessionsPerMinute,
      DEFAULT_CREATE_SESSIONS_PER_MINUTE,
      1,
    ),
    paceWindowMs: positiveNumber('paceWindowMs', options.paceWindowMs, DEFAULT_PACE_WINDOW_MS),
    log: createLog(options.logger),
  };
}
