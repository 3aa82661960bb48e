import type { RateLimitInfo } from '../base/errors.js';
import type { HeaderReader } from './exchange.js';

// Used when a `429` says neither `retry_after_ms` nor `Retry-After`.
const DEFAULT_RETRY_AFTER_MS = 1_000;

function headerCount(headers: HeaderReader, name: string): number | undefined {
  const value = headers.get(name)?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** The optional `X-RateLimit-Limit` and `X-RateLimit-Remaining` headers, when either is present. */
export function readRateLimitInfo(headers: HeaderReader): RateLimitInfo | undefined {
  const limit = headerCount(headers, 'x-ratelimit-limit');
  const remaining = headerCount(headers, 'x-ratelimit-remaining');
  if (limit === undefined && remaining === undefined) return undefined;
  const info: RateLimitInfo = {};
  if (limit !== undefined) info.limit = limit;
  if (remaining !== undefined) info.remaining = remaining;
  return info;
}

function bodyRetryAfterMs(body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as { retry_after_ms?: unknown }).retry_after_ms;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.ceil(value);
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

// `Retry-After` is either whole seconds or an HTTP date.
function headerRetryAfterMs(headers: HeaderReader): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * How long a `429` asks to wait: the body's `retry_after_ms` as the interface specifies,
 * else the standard `Retry-After` header, else one second.
 */
export function readRetryAfterMs(body: unknown, headers: HeaderReader): number {
  return bodyRetryAfterMs(body) ?? headerRetryAfterMs(headers) ?? DEFAULT_RETRY_AFTER_MS;
}
