/**
 * The longest `externalUserId` accepted, in UTF-16 code units (JavaScript's `length`). Every
 * store holds ids up to this length bit for bit (the store contract checks it); a longer one
 * would exceed PostgreSQL's index entry limit and be refused after the session was started.
 */
export const MAX_EXTERNAL_USER_ID_LENGTH = 256;

// A lone surrogate has no UTF-8 form: drivers write U+FFFD instead, so two different ids
// would become one. NUL is refused by PostgreSQL text.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Refuses an external user id that a store could not hold bit for bit, before anything is
 * sent to the service: a session started for it could never be matched to its result.
 */
export function checkExternalUserId(value: unknown, where: string): asserts value is string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`${where} needs externalUserId, a non-empty string.`);
  }
  if (value.length > MAX_EXTERNAL_USER_ID_LENGTH) {
    throw new TypeError(
      `${where}: externalUserId is ${value.length} characters long; at most ${MAX_EXTERNAL_USER_ID_LENGTH} are accepted. Pass your user's primary key, not a document.`,
    );
  }
  if (value.includes('\u0000') || LONE_SURROGATE.test(value)) {
    throw new TypeError(
      `${where}: externalUserId contains a NUL character or a lone UTF-16 surrogate, which cannot be stored as it is. Pass well-formed text (String.prototype.toWellFormed() repairs it), such as your user's primary key.`,
    );
  }
}

/** Whether `value` holds a lone UTF-16 surrogate, which UTF-8 has no form for. */
export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

/**
 * Throws a `TypeError` when a store could not hold `externalUserId` bit for bit: a lone UTF-16
 * surrogate has no UTF-8 form, so a driver writes U+FFFD in its place and two different ids
 * (`"x\ud800"`, `"x\udbff"`) become one. For Store authors, in `insert`, `findByUser` and
 * `hasNewerSession`; the Receiver never passes such an id (it refuses one in
 * `startVerification` and `track`, and a webhook carrying one finds no session).
 *
 * @example
 * async insert({ record, now }: InsertOptions) {
 *   checkStorableUserId(record.externalUserId, 'MyStore.insert');
 *   // ...
 * }
 */
export function checkStorableUserId(externalUserId: string, where: string): void {
  if (hasLoneSurrogate(externalUserId)) {
    throw new TypeError(
      `${where}: externalUserId contains a lone UTF-16 surrogate, which UTF-8 cannot hold: written as U+FFFD, it would match a different id. Pass well-formed text (String.prototype.toWellFormed() repairs it).`,
    );
  }
}
