import type { Clock } from '../base/clock/clock.js';
import type { RateLimitInfo } from '../base/errors.js';
import type { Logger } from '../base/logging/logger.js';
import type { VerificationPayload } from '../wire/payload/types.js';

/** Options of `createClient`. Every option has a default; the credentials default from the environment. */
export interface ClientOptions {
  /** API key sent as `Authorization: Bearer <key>`. Defaults to `FACEVERIFY_API_KEY`. */
  apiKey?: string | undefined;
  /** Base address of the service, e.g. `https://verify.example.com`. Defaults to `FACEVERIFY_BASE_URL`. */
  baseUrl?: string | undefined;
  /**
   * The `fetch` to send requests with (a mock, a tracing wrapper, a proxy's). Without it the
   * client sends with node:http and node:https on Node (their global agents: a proxy agent or
   * CA set there applies), at less than half the CPU of Node's `fetch` per request, and with
   * `globalThis.fetch` on Workers, Bun, Deno and elsewhere.
   */
  fetch?: typeof fetch | undefined;
  /**
   * Time and timers for pacing, retry waits and time limits. Tests pass
   * `createTestClock()` from `@faceverify/core/testing`. Default: the system clock.
   */
  clock?: Clock | undefined;
  /** Time limit of one attempt, in milliseconds, until the whole response body has arrived. Default 10 000. */
  timeoutMs?: number | undefined;
  /** Retries after a `429` (both methods) and after network errors, timeouts and `5xx` (`getSession` only). Default 3. */
  maxRetries?: number | undefined;
  /**
   * Client-side pacing of `POST /v1/verify`, shared by every client in the process that uses
   * the same API key. Default 60, the service's limit per key.
   */
  createSessionsPerMinute?: number | undefined;
  /**
   * Length of the pacing window in milliseconds. Default 60 000. Meant for tests, which need a
   * window short enough to observe; in production leave it alone and set `createSessionsPerMinute`.
   */
  paceWindowMs?: number | undefined;
  /**
   * Allows creating the client where `window` and `document` exist. Only for environments that
   * look like a browser but are not one (jsdom tests): an API key must never reach a browser.
   */
  dangerouslyAllowBrowser?: boolean | undefined;
  /**
   * Accepts a plain `http://` base URL on a host other than this machine. Off by default: the
   * API key would cross the network unencrypted. Only for an emulator reached over a private
   * network (another container); `http://localhost`, `127.0.0.1` and `[::1]` need no opt-in.
   */
  allowInsecureHttp?: boolean | undefined;
  /**
   * Where the client writes what it does. API keys are never written. Default: warnings and
   * errors to the console; `false` silences it.
   */
  logger?: Logger | false | undefined;
}

/** Per-call options. */
export interface RequestOptions {
  /** Aborting rejects the call at once with the signal's reason, also while it waits to be sent. */
  signal?: AbortSignal | undefined;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number | undefined;
  /**
   * Called each time this call waits out a `429` before trying again, with the wait: for
   * metrics of how often the API key runs into its limit.
   *
   * @example
   * await client.getSession(token, { onRateLimitWait: (delayMs) => waits.add(1, { delayMs }) });
   */
  onRateLimitWait?: ((delayMs: number) => void) | undefined;
}

/** Options of one `getSession` call. */
export interface SessionReadOptions extends RequestOptions {
  /**
   * `'background'` (the default: polls, webhook confirmations) waits its turn and waits out
   * a `429`. `'interactive'` (a request someone is waiting on, such as the redirect page)
   * goes after background reads, is not retried, and fails at once with `RateLimitError`
   * while the key is rate limited, instead of holding the request open.
   */
  priority?: 'background' | 'interactive' | undefined;
  /**
   * What a `429` does: `'wait'` waits out the service's `retry_after_ms` (and any already
   * known for this key) before trying again; `'throw'` rejects at once with
   * `RateLimitError`. Default: `'wait'` for background reads, `'throw'` for interactive ones.
   */
  onRateLimit?: 'wait' | 'throw' | undefined;
}

/** What `POST /v1/verify` is asked for. */
export interface CreateSessionParams {
  /** Identifier of the user on your side; the result carries it back as `external_user_id`. */
  externalUserId: string;
  /** Where the hosted page sends the user back. The redirect is never the result. */
  redirectUrl?: string | undefined;
  /** Further request fields, sent as they are. `external_user_id` and `redirect_url` above take precedence. */
  extra?: Record<string, unknown> | undefined;
}

/** A session the service has just created. */
export interface CreatedSession {
  /** The hosted session token: the key of `getSession` and of tracking. */
  token: string;
  /** Address of the hosted verification page; the only thing to send to the browser. */
  verifyUrl: string;
  /**
   * When the service says the hosted page's token expires (`expires_at`, ms since the epoch, on
   * the service's clock); absent when it says nothing readable.
   */
  expiresAt?: number;
  /** The response body as received. */
  raw: unknown;
}

/**
 * State of a session as the service reports it. `verified` and `failed` are completed and
 * carry `result`; `expired` means the service gave the session up; anything else is `pending`.
 */
export interface SessionSnapshot {
  token: string;
  status: 'pending' | 'verified' | 'failed' | 'expired';
  /** The result in the shape of the `verification.completed` webhook, present when completed. */
  result?: VerificationPayload;
  /** The response body as received. */
  raw: unknown;
  /** The `X-RateLimit-*` headers of the response, when it had any. */
  rateLimit?: RateLimitInfo;
}

/** The service's API, as used by a backend. */
export interface Client {
  /**
   * Starts a verification with `POST /v1/verify`. Calls are paced under the per-key limit and
   * queue in order; a `429` is waited out and retried. Any other failure is thrown at once and
   * never resent, because the session may already exist.
   *
   * @example
   * const { token, verifyUrl } = await client.createSession({ externalUserId: user.id });
   * await db.saveVerification(user.id, token);
   * res.redirect(verifyUrl);
   */
  createSession(params: CreateSessionParams, options?: RequestOptions): Promise<CreatedSession>;

  /**
   * Reads a session with `GET /v1/sessions/:token`: the source of truth for its result.
   * Network errors, timeouts, `5xx` and `429` are retried with backoff. Every read of one
   * API key in the process passes one gate: a few at a time, background reads first, and
   * none while the service's `retry_after_ms` runs (see {@link SessionReadOptions}).
   * A token that is not a single URL path segment is refused with a `TypeError`.
   *
   * @example
   * const session = await client.getSession(token, { signal: AbortSignal.timeout(30_000) });
   * if (session.result) await recordResult(session.result);
   */
  getSession(token: string, options?: SessionReadOptions): Promise<SessionSnapshot>;

  /**
   * Checks the configuration before the first user needs it: that the service's API is at
   * the base URL and accepts the API key. It reads a session no one has, once with the key
   * and once without, since a 404 alone is also what a wrong base URL answers. Throws
   * `ConfigurationError` naming the variable to change (`FACEVERIFY_API_KEY`,
   * `FACEVERIFY_BASE_URL`), with the messages of `faceverify doctor`; `NetworkError` or
   * `TimeoutError` when the service cannot be reached.
   *
   * @example
   * await client.check(); // at startup, before the server listens
   */
  check(options?: RequestOptions): Promise<void>;
}
