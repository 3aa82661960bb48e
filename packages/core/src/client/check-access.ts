import { ENV } from '../base/config/env.js';
import { ApiError, ConfigurationError, RateLimitError } from '../base/errors.js';
import { type ApiRequest, sendRequest, type Transport } from './http.js';

// A token no session has: the service answers 404 for it once it has accepted the key.
const PROBE_TOKEN = 'faceverify-check';

const BASE_URL_FIX = `Set ${ENV.baseUrl} (or \`client: { baseUrl }\`) to the service's address, without /v1 (the emulator prints it).`;

/** The status one attempt was answered with; a network failure or a timeout is thrown. */
async function statusOf(
  transport: Transport,
  request: ApiRequest,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<number> {
  try {
    return (await sendRequest(transport, request, timeoutMs, signal)).status;
  } catch (error) {
    if (error instanceof ApiError || error instanceof RateLimitError) return error.serviceStatus;
    throw error;
  }
}

const refused = (status: number) => status === 401 || status === 403;

/**
 * Checks that the service at the base URL exists and accepts the API key, with two reads of
 * a session no one has: one with the key, one without. A 404 alone proves nothing (a wrong
 * base URL answers 404 too); only a path that refuses a request without a key and answers
 * the key's request is the service's API accepting the key. Throws `ConfigurationError`
 * naming the variable to change; network failures and timeouts are thrown as they are.
 */
export async function checkAccess(
  transport: Transport,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const path = `/v1/sessions/${PROBE_TOKEN}`;
  const where = `the service at ${transport.baseUrl}`;
  const request: ApiRequest = {
    method: 'GET',
    path,
    endpoint: 'GET /v1/sessions/:token',
    resendable: true,
  };
  const withKey = await statusOf(transport, request, timeoutMs, signal);
  if (refused(withKey)) {
    throw new ConfigurationError(
      `${where} refused ${ENV.apiKey} (${withKey}): copy the API key from the service's Settings into ${ENV.apiKey} (or \`client: { apiKey }\`).`,
    );
  }
  if (withKey !== 404 && (withKey < 200 || withKey >= 300)) {
    if (withKey === 429 || withKey >= 500) {
      throw new ApiError(
        `${where} answered GET ${path} with ${withKey}, so ${ENV.apiKey} could not be checked: try again later.`,
        withKey,
      );
    }
    throw new ConfigurationError(
      `${where} answered GET ${new URL(transport.baseUrl + path).pathname} with ${withKey}, which the service's API does not: ${ENV.baseUrl} is likely not its address. ${BASE_URL_FIX}`,
    );
  }
  const withoutKey = await statusOf(
    transport,
    Object.assign({}, request, { withoutKey: true }),
    timeoutMs,
    signal,
  );
  if (refused(withoutKey)) return;
  const requested = new URL(transport.baseUrl + path).pathname;
  throw new ConfigurationError(
    withoutKey === 404
      ? `${where} has no GET ${requested}: it answered 404 with and without an API key, so ${ENV.apiKey} could not be checked and ${ENV.baseUrl} is likely wrong. ${BASE_URL_FIX}`
      : `${where} answered GET ${requested} with ${withoutKey} without an API key, which the service's API refuses: ${ENV.baseUrl} is likely not its address. ${BASE_URL_FIX}`,
  );
}
