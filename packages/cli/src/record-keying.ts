import type { StoredRecordHead } from '@faceverify/core';

/**
 * A sealed text's prefix, then the id of the first key it was sealed under: `fvt1.<key id>.…`
 * (a token), `fvr1.<key id>.…` (a result), and the versions to come, which keep the layout.
 * A stored result is JSON around its sealed text: `{"sealed":"fvr1.<key id>.…"}`.
 */
const SEALED_TEXT = /^(?:\{"sealed":")?fv[a-z]\d+\.([A-Za-z0-9_-]+)\./;

/** The id of the first key `text` was sealed under, or undefined when it is not sealed. */
export function firstSealedKeyId(text: string | undefined): string | undefined {
  return text === undefined ? undefined : SEALED_TEXT.exec(text)?.[1];
}

/** How every stored user id that is a keyed hash begins; one without it is in clear. */
const HASHED_USER = 'u1:';

/**
 * What keyed a stored record, and so whether `forgetUser` can find it by its user:
 * - `key:<id>`: the key of that id hashed its user (the first key its token, or else its
 *   result, was sealed under: a Receiver seals under its keys in order, and hashes with
 *   the first);
 * - `clear`: a record from before user ids were hashed, found by the id itself, with any key;
 * - `unsealed`: a hashed user with nothing sealed left to tell the key (a session that
 *   closed without a result).
 */
export function recordKeying(record: StoredRecordHead): string {
  if (!record.user.startsWith(HASHED_USER)) return 'clear';
  const id = firstSealedKeyId(record.token) ?? firstSealedKeyId(record.result);
  return id === undefined ? 'unsealed' : `key:${id}`;
}
