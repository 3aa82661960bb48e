import type { Clock } from '../base/clock/clock.js';
import {
  ApiError,
  NetworkError,
  RateLimitError,
  type RateLimitInfo,
  TimeoutError,
} from '../base/errors.js';
import { onAbort } from '../base/signal/on-abort.js';
import { parseJsonWithoutPrototypeKeys } from '../wire/payload/parse-json-without-prototype-keys.js';
import type { ExchangeAnswer, HttpExchange } from './exchange.js';
import { readRateLimitInfo, readRetryAfterMs } from './rate-limit-response.js';
import { scrubKey } from './scrub-key.js';

/** Where requests go and how they are authenticated. */
export interface Transport {
  baseUrl: string;
  apiKey: string;
  exchange: HttpExchange;
  clock: Clock;
}

/** One call of the service's API. */
export interface ApiRequest {
  method: 'GET' | 'POST';
  /** Path after the base URL, already encoded. */
  path: string;
  /** The endpoint as the interface names it, for messages and logs, e.g. `GET /v1/sessions/:token`. */
  endpoint: string;
  /** JSON request body. */
  body?: Record<string, unknown>;
  /** Whether sending it twice is harmless; a request that is not gets no automatic resend. */
  resendable: boolean;
  /** Sent without the `Authorization` header: to see how the service answers a request without a key. */
  withoutKey?: boolean;
}

/** A successful (`2xx`) response with a JSON body. */
export interface ApiResponse {
  status: number;
  body: unknown;
  rateLimit: RateLimitInfo | undefined;
}

const CLIENT_NAME = 'faceverify-core';
// Service-provided text is quoted in messages; a bound keeps a misbehaving service from
// flooding logs through them.
const QUOTE_LIMIT = 300;

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: parseJsonWithoutPrototypeKeys(text) };
  } catch {
    return undefined;
  }
}

/** The service's own explanation from an error body (`message`, else `error`), shortened. */
function serviceMessage(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const { message, error } = body as { message?: unknown; error?: unknown };
  const text = typeof message === 'string' ? message : typeof error === 'string' ? error : '';
  if (text === '') return '';
  return `: ${text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text}`;
}

function endSentence(text: string): string {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

// The path as requested, with the base URL's own path and the endpoint's placeholders
// (never a token): what a 404 is about.
function requestedPath(baseUrl: string, request: ApiRequest): string {
  const endpointPath = request.endpoint.slice(request.endpoint.indexOf(' ') + 1);
  return `${new URL(baseUrl).pathname.replace(/\/$/, '')}${endpointPath}`;
}

// A refused key or an unknown address is the integrator's configuration: say where it is.
function configurationNote(status: number, baseUrl: string, request: ApiRequest): string {
  if (status === 401 || status === 403) {
    return " The service refused the API key: check FACEVERIFY_API_KEY (or `client: { apiKey }`); keys are in the service's Settings.";
  }
  if (status === 404) {
    const unknownToken = request.endpoint.includes(':token')
      ? 'No session has this token, or '
      : '';
    return ` ${unknownToken}the service has no ${requestedPath(baseUrl, request)}: check that FACEVERIFY_BASE_URL (or \`client: { baseUrl }\`) is the service's address, without /v1.`;
  }
  return '';
}

function notResentNote(request: ApiRequest): string {
  return request.resendable
    ? ''
    : ' The request may have reached the service, so it was not resent: a resend could create a second session.';
}

function describeCause(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function toResponse(
  transport: Transport,
  request: ApiRequest,
  response: ExchangeAnswer,
): ApiResponse {
  const text = scrubKey(response.text, transport.apiKey);
  const parsed = text.trim() === '' ? undefined : parseJson(text);
  const body = parsed?.value;
  const rateLimit = readRateLimitInfo(response.headers);
  if (response.status === 429) {
    throw new RateLimitError(
      `${request.endpoint} was rate limited (429)${serviceMessage(body)}`,
      readRetryAfterMs(body, response.headers),
      rateLimit ?? {},
    );
  }
  if (response.status < 200 || response.status > 299) {
    throw new ApiError(
      endSentence(
        `${request.endpoint} failed with status ${response.status}${serviceMessage(body)}`,
      ) +
        configurationNote(response.status, transport.baseUrl, request) +
        (response.status >= 500 ? notResentNote(request) : ''),
      response.status,
      body,
    );
  }
  if (!parsed) {
    throw new ApiError(
      `${request.endpoint} answered ${response.status} without a valid JSON body.`,
      response.status,
    );
  }
  return { status: response.status, body, rateLimit };
}

/**
 * Sends one attempt and reads the whole response under one time limit. Throws
 * `RateLimitError` for `429`, `ApiError` for other error statuses and unreadable bodies,
 * `TimeoutError`, `NetworkError`, or the caller's abort reason.
 */
export async function sendRequest(
  transport: Transport,
  request: ApiRequest,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<ApiResponse> {
  signal?.throwIfAborted();
  const controller = new AbortController();
  let timedOut = false;
  const timer = transport.clock.setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const stopListening = onAbort(signal, () => controller.abort(signal?.reason));

  const headers: Record<string, string> = {
    accept: 'application/json',
    'x-faceverify-client': CLIENT_NAME,
  };
  if (request.withoutKey !== true) headers.authorization = `Bearer ${transport.apiKey}`;
  let body: string | undefined;
  if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.body);
  }
  try {
    let response: ExchangeAnswer;
    try {
      response = await transport.exchange({
        url: `${transport.baseUrl}${request.path}`,
        method: request.method,
        headers,
        body,
        signal: controller.signal,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut) {
        throw new TimeoutError(
          `${request.endpoint} did not complete within ${timeoutMs} ms.${notResentNote(request)}`,
          timeoutMs,
        );
      }
      throw new NetworkError(
        `${request.endpoint} failed without a response (${describeCause(error)}). Check that FACEVERIFY_BASE_URL (or \`client: { baseUrl }\`) is the service's address and that it is reachable.${notResentNote(request)}`,
        { cause: error },
      );
    }
    return toResponse(transport, request, response);
  } finally {
    transport.clock.clearTimeout(timer);
    stopListening();
  }
}
