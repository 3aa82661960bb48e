import { ConfigurationError } from '@faceverify/core';
import { type AccountConfig, resolveAccounts } from './accounts/resolve-accounts.js';
import { generateControlToken } from './credentials.js';
import type { FaultSettings } from './faults/fault-settings.js';
import { isHttpUrl } from './http-url.js';
import type { EmulatorLogger } from './logger.js';

/** A request limit over a sliding window. */
export interface RateLimitOptions {
  limit?: number | undefined;
  windowMs?: number | undefined;
}

/**
 * One account of the `accounts` option: its own API keys, webhook signing secret and
 * callback URL, as an account of the service has in its Settings.
 */
export interface EmulatorAccountOptions {
  /** 1 to 64 letters, digits, `_` or `-`, unique among the accounts, such as `acme`. */
  id: string;
  /** The account's API keys, each with its own rate limit; default one generated `fv_test_…`. */
  apiKeys?: readonly string[] | undefined;
  /** The account's webhook signing secret; default a generated `whsec_…` secret. */
  signingSecret?: string | undefined;
  /** Where the account's webhooks are POSTed; without one, its completions send no webhook. */
  callbackUrl?: string | null | undefined;
}

/**
 * Options of {@link startEmulator}. Every option has a default, so `startEmulator()` runs a
 * working emulator on a random port with a generated API key and signing secret.
 */
export interface EmulatorOptions {
  /** Port to listen on; `0` (the default) picks a free one. */
  port?: number | undefined;
  /** Address to listen on; default `127.0.0.1`. */
  host?: string | undefined;
  /**
   * Base URL the emulator announces in `verify_url` and image links, when it is reached
   * through another address (a proxy, a container port); default the address it listens on.
   */
  publicUrl?: string | undefined;
  /**
   * Token the `/__emulator` control endpoints require, as `Authorization: Bearer <token>`.
   * When the emulator listens beyond this machine one is generated if none is given;
   * on loopback none is required unless one is given here.
   */
  controlToken?: string | undefined;
  /**
   * More `Host` names (`name` or `name:port`) the emulator answers to, such as a container
   * name (`emulator:4010`). Its own address, `localhost`, `127.0.0.1`, `[::1]` (with its
   * port) and the host of `publicUrl` are always accepted; other requests get `421`, which
   * keeps web pages from reaching it through DNS rebinding.
   */
  allowedHosts?: readonly string[] | undefined;
  /**
   * Where webhooks are POSTed; without one, completions send no webhook. With `apiKeys` and
   * `signingSecret`, it describes the emulator's one account; see `accounts` for several.
   */
  callbackUrl?: string | null | undefined;
  /** Accepted API keys, each with its own rate limit; default one generated `fv_test_…` key. */
  apiKeys?: readonly string[] | undefined;
  /** Webhook signing secret; default a generated `whsec_…` secret. */
  signingSecret?: string | undefined;
  /**
   * Several accounts, each with its own API keys, signing secret and callback URL: a session
   * belongs to the account whose key created it. Without it the emulator serves one account,
   * `default`, described by `apiKeys`, `signingSecret` and `callbackUrl`; giving both is an
   * error.
   *
   * @example
   * await startEmulator({
   *   accounts: [
   *     { id: 'acme', callbackUrl: 'http://127.0.0.1:3000/webhooks/verification' },
   *     { id: 'globex', apiKeys: ['fv_test_globex'], signingSecret: 'whsec_globex' },
   *   ],
   * });
   */
  accounts?: readonly EmulatorAccountOptions[] | undefined;
  /** Lifetime of a hosted session token; default 15 minutes. */
  sessionTtlMs?: number | undefined;
  /** Lifetime of a signed front image link; default 15 minutes. */
  imageUrlTtlMs?: number | undefined;
  /**
   * How long a request body may take to arrive; a sender that stalls or trickles gets
   * `408 body_timeout` instead of holding the connection. Default 10 s.
   */
  bodyTimeoutMs?: number | undefined;
  /** How long a webhook receiver may take to answer; default 5 seconds. */
  webhookTimeoutMs?: number | undefined;
  rateLimits?:
    | {
        /**
         * `POST /v1/verify` per API key; default 60 per minute.
         */
        verify?: RateLimitOptions | undefined;
        /**
         * `POST /v1/sessions/:token/complete` per client IP; default 20 per minute.
         */
        complete?: RateLimitOptions | undefined;
      }
    | undefined;
  /** Faults to inject from the start; see {@link FaultSettings}. */
  faults?: FaultSettings | undefined;
  /**
   * Seed of the randomness behind fault probabilities, simulated confidence values and
   * webhook layouts, so that a run can be repeated. Tokens and keys stay truly random.
   */
  seed?: string | number | undefined;
  /** Clock in epoch milliseconds, for tests that move time by hand; default `Date.now`. */
  now?: (() => number) | undefined;
  /** Receives one line per notable event; default silent. */
  logger?: EmulatorLogger | undefined;
}

interface ResolvedRateLimit {
  limit: number;
  windowMs: number;
}

/** Options with their defaults applied and checked. */
export interface EmulatorConfig {
  port: number;
  host: string;
  publicUrl: string | null;
  controlToken: string | null;
  allowedHosts: readonly string[];
  accounts: readonly AccountConfig[];
  sessionTtlMs: number;
  imageUrlTtlMs: number;
  webhookTimeoutMs: number;
  bodyTimeoutMs: number;
  rateLimits: { verify: ResolvedRateLimit; complete: ResolvedRateLimit };
  faults: FaultSettings;
  seed: string | number | undefined;
  now: () => number;
  logger: EmulatorLogger | undefined;
}

const MINUTE_MS = 60_000;

function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError(`${name} must be a whole number of at least 1, not ${value}.`);
  }
  return value;
}

function rateLimit(
  options: RateLimitOptions | undefined,
  name: string,
  fallback: ResolvedRateLimit,
): ResolvedRateLimit {
  return {
    limit: positiveInteger(options?.limit, `rateLimits.${name}.limit`, fallback.limit),
    windowMs: positiveInteger(options?.windowMs, `rateLimits.${name}.windowMs`, fallback.windowMs),
  };
}

/** Whether `host` (an address to listen on) is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function checkControlToken(token: string | undefined, host: string): string | null {
  if (token !== undefined && !/^[\x21-\x7e]{16,}$/.test(token)) {
    throw new ConfigurationError(
      'controlToken must be at least 16 visible ASCII characters, without spaces.',
    );
  }
  return token ?? (isLoopbackHost(host) ? null : generateControlToken());
}

function checkAllowedHosts(hosts: readonly string[] | undefined): readonly string[] {
  return (hosts ?? []).map((host, index) => {
    if (typeof host !== 'string' || !/^[\w.\-[\]:]+$/.test(host)) {
      throw new ConfigurationError(
        `allowedHosts[${index}] must be a host name or address, optionally with :port.`,
      );
    }
    return host.toLowerCase();
  });
}

/** Applies defaults and checks every option. @throws ConfigurationError naming the option. */
export function resolveOptions(options: EmulatorOptions): EmulatorConfig {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigurationError(`port must be a whole number from 0 to 65535, not ${port}.`);
  }
  const host = options.host ?? '127.0.0.1';
  if (host.trim() === '') throw new ConfigurationError('host must not be empty.');
  if (options.publicUrl !== undefined && !isHttpUrl(options.publicUrl)) {
    throw new ConfigurationError('publicUrl must be an absolute http or https URL.');
  }
  return {
    port,
    host,
    publicUrl: options.publicUrl === undefined ? null : options.publicUrl.replace(/\/+$/, ''),
    controlToken: checkControlToken(options.controlToken, host),
    allowedHosts: checkAllowedHosts(options.allowedHosts),
    accounts: resolveAccounts(options),
    sessionTtlMs: positiveInteger(options.sessionTtlMs, 'sessionTtlMs', 15 * MINUTE_MS),
    imageUrlTtlMs: positiveInteger(options.imageUrlTtlMs, 'imageUrlTtlMs', 15 * MINUTE_MS),
    webhookTimeoutMs: positiveInteger(options.webhookTimeoutMs, 'webhookTimeoutMs', 5_000),
    bodyTimeoutMs: positiveInteger(options.bodyTimeoutMs, 'bodyTimeoutMs', 10_000),
    rateLimits: {
      verify: rateLimit(options.rateLimits?.verify, 'verify', { limit: 60, windowMs: MINUTE_MS }),
      complete: rateLimit(options.rateLimits?.complete, 'complete', {
        limit: 20,
        windowMs: MINUTE_MS,
      }),
    },
    faults: options.faults ?? {},
    seed: options.seed,
    now: options.now ?? Date.now,
    logger: options.logger,
  };
}
