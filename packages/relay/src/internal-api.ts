import {
  ApiError,
  FaceverifyError,
  NetworkError,
  RateLimitError,
  type Receiver,
  StartLimitError,
  TimeoutError,
} from '@faceverify/core';
import { bearerMatches } from './bearer.js';
import { prometheusText, type SinkCounters } from './metrics.js';

/** What the internal API serves from. */
export interface InternalApiOptions {
  /** The relay's Receiver. */
  receiver: Receiver<unknown>;
  /** The bearer token the session routes require. */
  token: string;
  /** Each sink's runs, for `/metrics`. */
  sinks: SinkCounters;
}

// A start request holds a user id and a redirect URL: a few hundred bytes.
const MAX_BODY_BYTES = 16 * 1024;
// A lookup waits for the result at most this long (`?waitMs=`), as waitForResult's default.
const MAX_WAIT_MS = 30_000;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}

function problem(status: number, error: string, message: string, headers = {}): Response {
  return json(status, { error, message }, headers);
}

async function readJson(request: Request): Promise<Record<string, unknown> | Response> {
  const tooLarge = () =>
    problem(413, 'body_too_large', `The body must be at most ${MAX_BODY_BYTES} bytes.`);
  // Announced too large: refused unread.
  if (Number(request.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) return tooLarge();
  const text = await request.text();
  if (new TextEncoder().encode(text).length > MAX_BODY_BYTES) return tooLarge();
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return problem(400, 'body_invalid', 'The body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}

/** The answer to a failed call of the service: what the backend may retry, and when. */
function serviceFailure(error: unknown): Response {
  if (error instanceof RateLimitError) {
    const seconds = Math.max(1, Math.ceil(error.retryAfterMs / 1000));
    return problem(429, error.code, error.message, { 'retry-after': String(seconds) });
  }
  if (error instanceof StartLimitError) {
    return problem(429, error.code, error.message, {
      'retry-after': String(Math.max(1, Math.ceil((error.retryAt.getTime() - Date.now()) / 1000))),
    });
  }
  if (error instanceof TimeoutError) return problem(504, error.code, error.message);
  if (error instanceof NetworkError || error instanceof ApiError) {
    return problem(502, error.code, error.message);
  }
  if (error instanceof FaceverifyError) return problem(400, error.code, error.message);
  return problem(500, 'internal_error', 'The relay failed this request; see its log.');
}

/**
 * The relay's internal API, as a Fetch handler: for the backend, on its own port.
 *
 * - `POST /sessions` `{ externalUserId, redirectUrl?, purpose?, fresh? }` starts a session
 *   (paced as the Receiver paces every start) and answers `201 { token, verifyUrl, reused,
 *   expiresAt }`, or `200` with the user's open session for the same purpose handed out again
 *   (`reused: true`); `429 start_limit_reached` past the day's starts;
 * - `POST /sessions/:token/confirm` asks the service for the session's state, on the
 *   backend's return page: `{ status, result? }`;
 * - `GET /sessions/:token?waitMs=` reads the store: `{ state, result?, source? }`,
 *   waiting up to `waitMs` (at most 30,000) for the result;
 * - `GET /healthz` (the Receiver's health, always `200` while the process answers),
 *   `GET /readyz` (`200` or `503` by `ready`) and `GET /metrics` (Prometheus text).
 *
 * The session routes require `Authorization: Bearer <FACEVERIFY_RELAY_TOKEN>` and answer
 * `401` without it; the probes and metrics hold nothing of a user and need none.
 */
export function internalApi(options: InternalApiOptions): (request: Request) => Promise<Response> {
  const { receiver, token, sinks } = options;
  return async (request) => {
    const { pathname, searchParams } = new URL(request.url);
    if (request.method === 'GET' && pathname === '/healthz')
      return json(200, await receiver.health());
    if (request.method === 'GET' && pathname === '/readyz') {
      const health = await receiver.health();
      return json(health.ready ? 200 : 503, { ready: health.ready });
    }
    if (request.method === 'GET' && pathname === '/metrics') {
      return new Response(prometheusText(await receiver.health(), sinks), {
        headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' },
      });
    }
    const route = /^\/sessions(?:\/([^/]+)(\/confirm)?)?$/.exec(pathname);
    if (!route) return problem(404, 'not_found', 'No such route.');
    if (!bearerMatches(request.headers.get('authorization'), token)) {
      return problem(401, 'unauthorized', 'Send Authorization: Bearer <FACEVERIFY_RELAY_TOKEN>.', {
        'www-authenticate': 'Bearer',
      });
    }
    const [, encoded, confirm] = route;
    try {
      if (encoded === undefined) {
        if (request.method !== 'POST') return methodNotAllowed('POST');
        return await startSession(receiver, request);
      }
      const sessionToken = decodeURIComponent(encoded);
      if (confirm) {
        if (request.method !== 'POST') return methodNotAllowed('POST');
        return json(200, await receiver.confirm(sessionToken));
      }
      if (request.method !== 'GET') return methodNotAllowed('GET');
      const waitMs = Number(searchParams.get('waitMs') ?? '0');
      if (!Number.isSafeInteger(waitMs) || waitMs < 0 || waitMs > MAX_WAIT_MS) {
        return problem(
          400,
          'wait_invalid',
          `waitMs must be whole milliseconds from 0 to ${MAX_WAIT_MS}.`,
        );
      }
      // waitForResult reads the store once before it waits: 1 ms is a plain lookup.
      return json(
        200,
        await receiver.waitForResult(sessionToken, { timeoutMs: Math.max(1, waitMs) }),
      );
    } catch (error) {
      return serviceFailure(error);
    }
  };
}

function methodNotAllowed(allow: string): Response {
  return problem(405, 'method_not_allowed', `Use ${allow}.`, { allow });
}

async function startSession(receiver: Receiver<unknown>, request: Request): Promise<Response> {
  const body = await readJson(request);
  if (body instanceof Response) return body;
  const { externalUserId, redirectUrl, purpose, fresh } = body;
  if (typeof externalUserId !== 'string' || externalUserId === '') {
    return problem(400, 'external_user_id_invalid', 'externalUserId must be a non-empty string.');
  }
  if (redirectUrl !== undefined && typeof redirectUrl !== 'string') {
    return problem(400, 'redirect_url_invalid', 'redirectUrl must be a string when given.');
  }
  if (purpose !== undefined && typeof purpose !== 'string') {
    return problem(400, 'purpose_invalid', 'purpose must be a string when given.');
  }
  if (fresh !== undefined && typeof fresh !== 'boolean') {
    return problem(400, 'fresh_invalid', 'fresh must be true or false when given.');
  }
  const started = await receiver.startVerification({
    externalUserId,
    redirectUrl,
    ...(purpose === undefined ? {} : { purpose }),
    ...(fresh === undefined ? {} : { fresh }),
  });
  // The user's open session handed out again: nothing new was created.
  return json(started.reused ? 200 : 201, {
    token: started.token,
    verifyUrl: started.verifyUrl,
    reused: started.reused,
    expiresAt: started.expiresAt.toISOString(),
  });
}
