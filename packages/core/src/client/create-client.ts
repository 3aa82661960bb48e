import { RateLimitError } from '../base/errors.js';
import { assertServerRuntime } from './browser-guard.js';
import { checkAccess } from './check-access.js';
import { checkExternalUserId } from './external-user-id.js';
import { type ApiRequest, sendRequest, type Transport } from './http.js';
import type { PaceLimits } from './pacer.js';
import { assertPathSegment } from './path-segment.js';
import { limitersForKey } from './per-key-registry.js';
import { readCreatedSession, readSessionSnapshot } from './read-session.js';
import { positiveNumber, resolveClientOptions } from './resolve-options.js';
import { withRetries } from './retry.js';
import type {
  Client,
  ClientOptions,
  CreatedSession,
  CreateSessionParams,
  RequestOptions,
  SessionSnapshot,
} from './types.js';

const CREATE_ENDPOINT = 'POST /v1/verify';
const GET_ENDPOINT = 'GET /v1/sessions/:token';

function createSessionBody(params: CreateSessionParams): Record<string, unknown> {
  checkExternalUserId(params.externalUserId, 'createSession');
  // The named parameters win over `extra`, so `extra` cannot silently redirect a session.
  return Object.assign(
    {},
    params.extra,
    { external_user_id: params.externalUserId },
    params.redirectUrl === undefined ? undefined : { redirect_url: params.redirectUrl },
  );
}

/**
 * Creates a client of the service's API. Options default from the environment:
 * `FACEVERIFY_API_KEY` and `FACEVERIFY_BASE_URL`. Throws `ConfigurationError` at once when
 * either is missing or unusable (a JWT in place of an API key, for example), and
 * `BrowserRefusedError` in a browser, where an API key must never be.
 *
 * @example
 * const client = createClient(); // FACEVERIFY_API_KEY and FACEVERIFY_BASE_URL from the environment
 * const { token, verifyUrl } = await client.createSession({ externalUserId: 'user-42' });
 * // later, or when the webhook is overdue:
 * const session = await client.getSession(token);
 * if (session.status === 'verified') grantAccess(session.result?.external_user_id);
 */
export function createClient(options: ClientOptions = {}): Client {
  assertServerRuntime(options.dangerouslyAllowBrowser === true);
  const config = resolveClientOptions(options);
  const transport: Transport = {
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    exchange: config.exchange,
    clock: config.clock,
  };
  const limits: PaceLimits = {
    limit: config.createSessionsPerMinute,
    windowMs: config.paceWindowMs,
  };
  let limiters: ReturnType<typeof limitersForKey> | undefined;
  const keyLimiters = () => {
    limiters ??= limitersForKey(config.apiKey, config.clock);
    return limiters;
  };

  const attemptTimeout = (requestOptions: RequestOptions) =>
    positiveNumber('timeoutMs', requestOptions.timeoutMs, config.timeoutMs);

  return {
    async createSession(params, requestOptions = {}): Promise<CreatedSession> {
      const request: ApiRequest = {
        method: 'POST',
        path: '/v1/verify',
        endpoint: CREATE_ENDPOINT,
        body: createSessionBody(params),
        resendable: false,
      };
      const { signal } = requestOptions;
      const timeoutMs = attemptTimeout(requestOptions);
      const keyPacer = (await keyLimiters()).pacer;
      const queuedAt = config.clock.now();
      let finishSend = await keyPacer.acquire(limits, signal);
      const pacedMs = config.clock.now() - queuedAt;
      if (pacedMs > 0) {
        config.log.debug('faceverify request paced', { endpoint: CREATE_ENDPOINT, pacedMs });
      }

      const response = await withRetries(
        async () => {
          try {
            return await sendRequest(transport, request, timeoutMs, signal);
          } finally {
            finishSend();
          }
        },
        {
          endpoint: request.endpoint,
          maxRetries: config.maxRetries,
          resendable: request.resendable,
          signal,
          log: config.log,
          clock: config.clock,
          // A retry is a new send: it takes a slot of its own, and holding the pacer keeps
          // every other caller of this key from running into the same 429.
          waitAfterRateLimit: async (delayMs) => {
            requestOptions.onRateLimitWait?.(delayMs);
            finishSend = await keyPacer.acquireAfter(delayMs, limits, signal);
          },
        },
      );
      const session = readCreatedSession(CREATE_ENDPOINT, response);
      config.log.info('faceverify session created', { token: session.token });
      return session;
    },

    async getSession(token, requestOptions = {}): Promise<SessionSnapshot> {
      assertPathSegment(token);
      const request: ApiRequest = {
        method: 'GET',
        path: `/v1/sessions/${encodeURIComponent(token)}`,
        endpoint: GET_ENDPOINT,
        resendable: true,
      };
      const { signal } = requestOptions;
      const priority = requestOptions.priority ?? 'background';
      const waitOut =
        (requestOptions.onRateLimit ?? (priority === 'background' ? 'wait' : 'throw')) === 'wait';
      const timeoutMs = attemptTimeout(requestOptions);
      const { readGate } = await keyLimiters();
      const response = await withRetries(
        async () => {
          const finishRead = await readGate.acquire(priority, { signal, waitOut });
          try {
            return await sendRequest(transport, request, timeoutMs, signal);
          } catch (error) {
            if (error instanceof RateLimitError) readGate.holdFor(error.retryAfterMs);
            throw error;
          } finally {
            finishRead();
          }
        },
        {
          endpoint: request.endpoint,
          // Someone waits on an interactive read: one attempt, and its failure is the answer.
          maxRetries: priority === 'interactive' ? 0 : config.maxRetries,
          resendable: request.resendable,
          signal,
          log: config.log,
          clock: config.clock,
          // The gate holds every reader of this key until the service's wait (with this
          // caller's jitter) is over; the next attempt waits its turn there.
          waitAfterRateLimit: async (delayMs) => {
            requestOptions.onRateLimitWait?.(delayMs);
            readGate.holdFor(delayMs);
          },
          waitOutRateLimits: waitOut,
        },
      );
      const snapshot = readSessionSnapshot(GET_ENDPOINT, response, token);
      // Never the status: a result is personal data, and the Receiver logs what it delivers.
      config.log.debug('faceverify session read', { token });
      return snapshot;
    },

    check: (requestOptions = {}) =>
      checkAccess(transport, attemptTimeout(requestOptions), requestOptions.signal),
  };
}
