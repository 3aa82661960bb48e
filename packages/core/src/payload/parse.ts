import { WebhookPayloadError } from '../errors.js';
import { decodeJson } from './decode-json.js';
import type { VerificationPayload } from './types.js';

export const COMPLETED_EVENT = 'verification.completed';

type FieldCheck = [field: string, expected: string, test: (value: unknown) => boolean];

const isString = (value: unknown) => typeof value === 'string';
const isBoolean = (value: unknown) => typeof value === 'boolean';

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

const FIELD_CHECKS: FieldCheck[] = [
  ['status', '"verified" or "failed"', (value) => value === 'verified' || value === 'failed'],
  ['external_user_id', 'a non-empty string', (value) => isString(value) && value !== ''],
  ['confidence', 'a finite number', (value) => typeof value === 'number' && Number.isFinite(value)],
  ['livenessPassed', 'a boolean', isBoolean],
  ['duplicate', 'a boolean', isBoolean],
  ['risk', 'a string', isString],
  ['reason', 'a string or null', (value) => value === null || isString(value)],
  ['frontImageUrl', 'an http(s) URL', isHttpUrl],
];

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** Validates an already parsed value as a `verification.completed` payload. */
export function validateVerificationPayload(value: unknown): VerificationPayload {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new WebhookPayloadError(`The payload must be a JSON object, got ${describe(value)}.`);
  }
  const record = value as Record<string, unknown>;
  if (record.event !== COMPLETED_EVENT) {
    throw new WebhookPayloadError(
      `Field "event" must be "${COMPLETED_EVENT}", got ${JSON.stringify(record.event) ?? 'nothing'}.`,
      'event',
    );
  }
  for (const [field, expected, test] of FIELD_CHECKS) {
    const fieldValue = Object.hasOwn(record, field) ? record[field] : undefined;
    if (!test(fieldValue)) {
      throw new WebhookPayloadError(
        `Field "${field}" must be ${expected}, got ${describe(fieldValue)}.`,
        field,
      );
    }
  }
  return record as VerificationPayload;
}

/**
 * Parses a raw webhook body (verify its signature first) into a typed payload.
 * Throws `WebhookPayloadError` naming the field for a missing or mistyped field, and for
 * invalid UTF-8 or JSON. Unknown extra fields are kept.
 *
 * @example
 * const payload = parseVerificationPayload(rawBody);
 * if (payload.status === 'verified') markVerified(payload.external_user_id);
 */
export function parseVerificationPayload(body: string | Uint8Array): VerificationPayload {
  return validateVerificationPayload(decodeJson(body));
}
