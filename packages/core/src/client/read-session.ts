import { ApiError, WebhookPayloadError } from '../base/errors.js';
import { COMPLETED_EVENT, validateVerificationPayload } from '../wire/payload/parse.js';
import type { VerificationPayload } from '../wire/payload/types.js';
import type { ApiResponse } from './http.js';
import type { CreatedSession, SessionSnapshot } from './types.js';

type JsonObject = Record<string, unknown>;

const TOKEN_FIELDS = ['token', 'session_token', 'sessionToken'] as const;

function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function invalid(endpoint: string, response: ApiResponse, problem: string): ApiError {
  return new ApiError(
    `${endpoint} answered ${response.status} with an unexpected body: ${problem}`,
    response.status,
    response.body,
  );
}

function bodyObject(endpoint: string, response: ApiResponse): JsonObject {
  const record = asObject(response.body);
  if (!record) throw invalid(endpoint, response, 'it is not a JSON object.');
  return record;
}

/** The session token inside a verify URL: its `token` query parameter, else its last path segment. */
function tokenFromVerifyUrl(url: URL): string | undefined {
  const fromQuery = nonEmptyString(url.searchParams.get('token'));
  if (fromQuery) return fromQuery;
  const segment = url.pathname
    .split('/')
    .filter((part) => part !== '')
    .at(-1);
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

// Only http(s): the verify URL is handed to browsers, where a `javascript:` URL would run code.
function parseVerifyUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads the response of `POST /v1/verify`: the token from `token`, `session_token` or
 * `sessionToken`, else from inside `verify_url`, which must be an http(s) URL.
 */
export function readCreatedSession(endpoint: string, response: ApiResponse): CreatedSession {
  const record = bodyObject(endpoint, response);
  const verifyUrl = parseVerifyUrl(record.verify_url);
  if (!verifyUrl) throw invalid(endpoint, response, '"verify_url" is not an http(s) URL.');
  const token =
    TOKEN_FIELDS.map((field) => nonEmptyString(record[field])).find(Boolean) ??
    tokenFromVerifyUrl(verifyUrl);
  if (!token) throw invalid(endpoint, response, 'it holds no session token.');
  const expiresAt = typeof record.expires_at === 'string' ? Date.parse(record.expires_at) : NaN;
  return Number.isFinite(expiresAt)
    ? { token, verifyUrl: verifyUrl.href, expiresAt, raw: response.body }
    : { token, verifyUrl: verifyUrl.href, raw: response.body };
}

function snapshotStatus(value: unknown): SessionSnapshot['status'] {
  return value === 'verified' || value === 'failed' || value === 'expired' ? value : 'pending';
}

/**
 * The result of a completed session as a `verification.completed` payload. Result fields
 * are read from `result` when it is an object, else from the top level; the session's own
 * `status` and `external_user_id` must agree with any the result repeats.
 */
function readResult(
  endpoint: string,
  response: ApiResponse,
  record: JsonObject,
  status: 'verified' | 'failed',
): VerificationPayload {
  const nested = asObject(record.result);
  const { result: _ignored, ...topLevel } = record;
  const fields = nested ?? topLevel;
  if (nested) {
    for (const field of ['status', 'external_user_id']) {
      const outer = record[field];
      const inner = nested[field];
      if (outer !== undefined && inner !== undefined && outer !== inner) {
        throw invalid(endpoint, response, `"${field}" differs between the session and its result.`);
      }
    }
  }
  try {
    return validateVerificationPayload(
      Object.assign({}, fields, {
        event: COMPLETED_EVENT,
        status,
        external_user_id: record.external_user_id ?? fields.external_user_id,
      }),
    );
  } catch (error) {
    if (!(error instanceof WebhookPayloadError)) throw error;
    throw invalid(
      endpoint,
      response,
      `the ${status} session's result is invalid. ${error.message}`,
    );
  }
}

/**
 * Reads the response of `GET /v1/sessions/:token`. Only `verified` and `failed` are
 * completed, and then the result must be valid; `expired` is given up; any other status is
 * still pending. `token` is the token that was asked for.
 */
export function readSessionSnapshot(
  endpoint: string,
  response: ApiResponse,
  token: string,
): SessionSnapshot {
  const record = bodyObject(endpoint, response);
  const status = snapshotStatus(record.status);
  const snapshot: SessionSnapshot = { token, status, raw: response.body };
  if (status === 'verified' || status === 'failed') {
    snapshot.result = readResult(endpoint, response, record, status);
  }
  if (response.rateLimit) snapshot.rateLimit = response.rateLimit;
  return snapshot;
}
