import { WebhookPayloadError } from '../../base/errors.js';
import {
  JsonTooDeepError,
  parseJsonWithoutPrototypeKeys,
} from './parse-json-without-prototype-keys.js';
import type { VerificationPayload } from './types.js';

export const COMPLETED_EVENT = 'verification.completed';

const decoder = new TextDecoder('utf-8', { fatal: true });

// Where the runtime has it, `URL.canParse` validates without building a URL object.
const canParse = (URL as { canParse?: (url: string) => boolean }).canParse?.bind(URL);

/** Each typed field, in the order they are checked, and what it must be (for the error). */
const EXPECTED = {
  status: '"verified" or "failed"',
  external_user_id: 'a non-empty string',
  confidence: 'a finite number',
  livenessPassed: 'a boolean',
  duplicate: 'a boolean',
  risk: 'a string',
  reason: 'a string or null',
  frontImageUrl: 'an http(s) URL',
} as const;

type TypedField = keyof typeof EXPECTED;

const TYPED_FIELDS = Object.keys(EXPECTED) as TypedField[];
const KNOWN_FIELDS = new Set<string>(['event', ...TYPED_FIELDS]);

/**
 * Decodes strict UTF-8 and parses JSON without prototype keys (see
 * `parseJsonWithoutPrototypeKeys`); both failures are a `WebhookPayloadError`.
 */
export function decodeJson(body: string | Uint8Array): unknown {
  let text: string;
  if (typeof body === 'string') {
    text = body;
  } else {
    try {
      text = decoder.decode(body);
    } catch {
      throw new WebhookPayloadError('The body is not valid UTF-8.');
    }
  }
  try {
    return parseJsonWithoutPrototypeKeys(text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw new WebhookPayloadError(error.message);
    throw new WebhookPayloadError('The body is not valid JSON.');
  }
}

/**
 * Whether `value` is what `EXPECTED` says `field` must be: one function for every field, not
 * one per field, as this runs for every webhook.
 */
function isExpected(field: TypedField, value: unknown): boolean {
  switch (field) {
    case 'status':
      return value === 'verified' || value === 'failed';
    case 'external_user_id':
      return typeof value === 'string' && value !== '';
    case 'confidence':
      return typeof value === 'number' && Number.isFinite(value);
    case 'livenessPassed':
    case 'duplicate':
      return typeof value === 'boolean';
    case 'risk':
      return typeof value === 'string';
    case 'reason':
      return value === null || typeof value === 'string';
    case 'frontImageUrl':
      if (typeof value !== 'string') return false;
      // A URL spelled with its scheme as the service writes it is http(s) exactly when it
      // parses.
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
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Validates an already parsed value as a `verification.completed` payload. Returns a new
 * object: the typed fields as they are, and every other field under `extra`. An `extra`
 * object already there (a payload validated before, read back from a store) is merged, so
 * validating twice gives the same payload.
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
  for (const field of TYPED_FIELDS) {
    const fieldValue = Object.hasOwn(record, field) ? record[field] : undefined;
    if (!isExpected(field, fieldValue)) {
      throw new WebhookPayloadError(
        `Field "${field}" must be ${EXPECTED[field]}, got ${describe(fieldValue)}.`,
        field,
      );
    }
  }
  const payload: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  // `for...in` with an own-property check visits what `Object.entries` lists, in the same
  // order, without an array per field: this runs for every webhook.
  for (const field in record) {
    if (!Object.hasOwn(record, field)) continue;
    const fieldValue = record[field];
    if (KNOWN_FIELDS.has(field)) payload[field] = fieldValue;
    else if (field === 'extra' && isPlainObject(fieldValue)) Object.assign(extra, fieldValue);
    else extra[field] = fieldValue;
  }
  payload.extra = extra;
  return payload as unknown as VerificationPayload;
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
