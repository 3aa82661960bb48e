import { ConfigurationError } from '@faceverify/core';

/**
 * When a fault applies to the events it watches (webhook deliveries or session polls).
 * `next` comes first: the next `next` events are hit; then each event is hit with
 * `probability`. `probability` defaults to 1 when `next` is not given, and to 0 when it is.
 */
export interface FaultSchedule {
  next?: number;
  probability?: number;
}

/**
 * A fault's trigger in short: `true` hits every event, `false` none, a number in `[0, 1]` is a
 * probability, an object is a full {@link FaultSchedule}.
 */
export type FaultTrigger = boolean | number | FaultSchedule;

/** Holds webhooks back before sending them. */
export interface DelayFault extends FaultSchedule {
  ms: number;
}

/** Server error statuses the poll fault can answer with. */
export const SERVER_ERROR_STATUSES = [500, 502, 503, 504] as const;

export type ServerErrorStatus = (typeof SERVER_ERROR_STATUSES)[number];

/** Answers `GET /v1/sessions/:token` with a server error. */
export interface ServerErrorFault extends FaultSchedule {
  /** Status code: 500, 502, 503 or 504; default 503. */
  status?: ServerErrorStatus;
}

/** Answers `GET /v1/sessions/:token` with `429` and a `retry_after_ms`. */
export interface RateLimitStormFault extends FaultSchedule {
  /** The `retry_after_ms` announced; default 1000. */
  retryAfterMs?: number;
}

/**
 * Answers `POST /v1/verify` with a server error, after creating the session or not: a start
 * the service may have carried out though it answered as if it failed.
 */
export interface VerifyErrorFault extends ServerErrorFault {
  /** Create the session before answering the error. Default `false`. */
  created?: boolean;
}

/**
 * Faults to inject. Each kind left out is off. Setting faults replaces all earlier settings,
 * including what is left of earlier `next` counts.
 *
 * @example
 * emulator.setFaults({ dropWebhooks: 0.2, duplicateWebhooks: { next: 1 }, poll429: true });
 */
export interface FaultSettings {
  /** Do not send the webhook at all. */
  dropWebhooks?: FaultTrigger;
  /** Send the webhook twice, the same bytes and signature both times. */
  duplicateWebhooks?: FaultTrigger;
  /** Send the webhook with a signature that does not match its body. */
  corruptWebhooks?: FaultTrigger;
  delayWebhooks?: DelayFault | false;
  poll5xx?: FaultTrigger | ServerErrorFault;
  poll429?: FaultTrigger | RateLimitStormFault;
  /** Answer `POST /v1/verify` with a server error, the session created or not. */
  verify5xx?: FaultTrigger | VerifyErrorFault;
  /** Hold the answer to `POST /v1/verify` for `ms`, the session already created. */
  delayVerify?: DelayFault | false;
}

/** A schedule with its defaults filled in; `next` counts down as events are hit. */
export interface ActiveSchedule {
  next: number;
  probability: number;
}

/** Faults as the emulator runs them: every kind present, `null` when off. */
export interface ActiveFaults {
  dropWebhooks: ActiveSchedule | null;
  duplicateWebhooks: ActiveSchedule | null;
  corruptWebhooks: ActiveSchedule | null;
  delayWebhooks: (ActiveSchedule & { ms: number }) | null;
  poll5xx: (ActiveSchedule & { status: ServerErrorStatus }) | null;
  poll429: (ActiveSchedule & { retryAfterMs: number }) | null;
  verify5xx: (ActiveSchedule & { status: ServerErrorStatus; created: boolean }) | null;
  delayVerify: (ActiveSchedule & { ms: number }) | null;
}

const DEFAULT_SERVER_ERROR_STATUS: ServerErrorStatus = 503;
const DEFAULT_RETRY_AFTER_MS = 1000;
const FAULT_KINDS = [
  'dropWebhooks',
  'duplicateWebhooks',
  'corruptWebhooks',
  'delayWebhooks',
  'poll5xx',
  'poll429',
  'verify5xx',
  'delayVerify',
] as const;

type Fields = Record<string, unknown>;

function isPlainObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(field: string, expected: string): never {
  throw new ConfigurationError(`Fault setting "${field}" must be ${expected}.`);
}

function rejectUnknownFields(fields: Fields, allowed: readonly string[], where: string): void {
  for (const name of Object.keys(fields)) {
    if (!allowed.includes(name)) {
      throw new ConfigurationError(
        `Unknown fault setting "${where}${name}". Known: ${allowed.join(', ')}.`,
      );
    }
  }
}

function probabilityOf(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    fail(field, 'a probability between 0 and 1');
  }
  return value;
}

function wholeNumber(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(field, `a whole number from ${min} to ${max}`);
  }
  return value;
}

function serverErrorStatusOf(value: unknown, field: string): ServerErrorStatus {
  if (value === undefined) return DEFAULT_SERVER_ERROR_STATUS;
  const status = SERVER_ERROR_STATUSES.find((candidate) => candidate === value);
  if (status === undefined) fail(field, `one of ${SERVER_ERROR_STATUSES.join(', ')}`);
  return status;
}

function delayOf(value: unknown, field: string): (ActiveSchedule & { ms: number }) | null {
  if (value !== undefined && value !== false && !isPlainObject(value)) {
    fail(field, 'an object with "ms", or false');
  }
  const schedule = scheduleOf(value, field, ['ms']);
  // Details are checked whenever they are given, even for a schedule that never hits.
  const ms = isPlainObject(value)
    ? wholeNumber(value.ms, `${field}.ms`, 0, 24 * 60 * 60 * 1000)
    : 0;
  return schedule && { ...schedule, ms };
}

function scheduleOf(
  value: unknown,
  field: string,
  extra: readonly string[],
): ActiveSchedule | null {
  if (value === undefined || value === false) return null;
  if (value === true) return { next: 0, probability: 1 };
  if (typeof value === 'number') {
    const probability = probabilityOf(value, field);
    return probability === 0 ? null : { next: 0, probability };
  }
  if (!isPlainObject(value)) fail(field, 'true, false, a probability or an object');
  rejectUnknownFields(value, ['next', 'probability', ...extra], `${field}.`);
  const next =
    value.next === undefined
      ? 0
      : wholeNumber(value.next, `${field}.next`, 0, Number.MAX_SAFE_INTEGER);
  // Alone, a schedule hits every event; after a `next` count, it hits none unless told to.
  const defaultProbability = value.next === undefined ? 1 : 0;
  const probability =
    value.probability === undefined
      ? defaultProbability
      : probabilityOf(value.probability, `${field}.probability`);
  return next === 0 && probability === 0 ? null : { next, probability };
}

function detailsOf(value: unknown): Fields {
  return isPlainObject(value) ? value : {};
}

/**
 * Checks fault settings, from code or from the control endpoint's JSON, and fills in their
 * defaults. Unknown fields are refused so that a misspelt setting is not silently ignored.
 *
 * @throws ConfigurationError naming the offending field.
 */
export function normalizeFaultSettings(input: unknown): ActiveFaults {
  if (!isPlainObject(input)) fail('(settings)', 'an object');
  rejectUnknownFields(input, FAULT_KINDS, '');

  const serverError = scheduleOf(input.poll5xx, 'poll5xx', ['status']);
  const storm = scheduleOf(input.poll429, 'poll429', ['retryAfterMs']);
  const verifyError = scheduleOf(input.verify5xx, 'verify5xx', ['status', 'created']);
  // Details are checked whenever they are given, even for a schedule that never hits.
  const serverErrorDetails = detailsOf(input.poll5xx);
  const stormDetails = detailsOf(input.poll429);
  const verifyErrorDetails = detailsOf(input.verify5xx);
  const status = serverErrorStatusOf(serverErrorDetails.status, 'poll5xx.status');
  const retryAfterMs =
    stormDetails.retryAfterMs === undefined
      ? DEFAULT_RETRY_AFTER_MS
      : wholeNumber(stormDetails.retryAfterMs, 'poll429.retryAfterMs', 0, 60 * 60 * 1000);
  const verifyStatus = serverErrorStatusOf(verifyErrorDetails.status, 'verify5xx.status');
  const created = verifyErrorDetails.created ?? false;
  if (typeof created !== 'boolean') fail('verify5xx.created', 'true or false');

  return {
    dropWebhooks: scheduleOf(input.dropWebhooks, 'dropWebhooks', []),
    duplicateWebhooks: scheduleOf(input.duplicateWebhooks, 'duplicateWebhooks', []),
    corruptWebhooks: scheduleOf(input.corruptWebhooks, 'corruptWebhooks', []),
    delayWebhooks: delayOf(input.delayWebhooks, 'delayWebhooks'),
    poll5xx: serverError && { ...serverError, status },
    poll429: storm && { ...storm, retryAfterMs },
    verify5xx: verifyError && { ...verifyError, status: verifyStatus, created },
    delayVerify: delayOf(input.delayVerify, 'delayVerify'),
  };
}
