import { WebhookPayloadError } from '../../base/errors.js';
import { decodeJson } from './decode-json.js';
import type { VerificationPayload } from './types.js';

export const COMPLETED_EVENT = 'verification.completed';

type FieldCheck = [field: string, expected: string, test: (value: unknown) => boolean];

const isString = (value: unknown) => typeof value === 'string';
const isBoolean = (value: unknown) => typeof value === 'boolean';

// Where the runtime has it, `URL.canParse` validates without building a URL object.
const canParse = (URL as { canParse?: (url: string) => boolean }).canParse?.bind(URL);

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  // A URL spelled with its scheme as the service writes it is http(s) exactly when it parses.
  if (canParse && (value.startsWith('https://') || value.startsWith('http://'))) {
    return canParse(value);
  }
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

const KNOWN_FIELDS = new Set(['event', ...FIELD_CHECKS.map(([field]) => field)]);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The typed fields as they are, every other field under `extra`. An `extra` object already
 * there (a payload validated before, read back from a store) is merged, so validating twice
 * gives the same payload.
 */
function separateUnknownFields(record: Record<string, unknown>): VerificationPayload {
  const payload: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  // `for...in` with an own-property check visits what `Object.entries` lists, in the same
  // order, without an array per field: this runs for every webhook.
  for (const field in record) {
    if (!Object.hasOwn(record, field)) continue;
    const value = record[field];
    if (KNOWN_FIELDS.has(field)) payload[field] = value;
    else if (field === 'extra' && isPlainObject(value)) Object.assign(extra, value);
    else extra[field] = value;
  }
  payload.extra = extra;
  return payload as unknown as VerificationPayload;
}

/**
 * Validates an already parsed value as a `verification.completed` payload. Returns a new
 * object: the typed fields, and every other field in `extra`.
 */
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
  return separateUnknownFields(record);
}

/**
 * Parses a raw webhook body (verify its signature first) into a typed payload.
 * Throws `WebhookPayloadError` naming the field for a missing or mistyped field, and for
 * invalid UTF-8 or JSON. Unknown fields are kept in `extra`.
 *
 * @example
 * const payload = parseVerificationPayload(rawBody);
 * if (payload.status === 'verified') markVerified(payload.external_user_id);
 */
export function parseVerificationPayload(body: string | Uint8Array): VerificationPayload {
  return validateVerificationPayload(decodeJson(body));
}
