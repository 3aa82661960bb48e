/**
 * What an account id may be: it travels in a webhook's path (`/webhooks/verification/:account`)
 * and is stored beside a record, so it is a short path segment that needs no escaping.
 */
const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether `value` is a well-formed account id (1 to 64 of `A-Z a-z 0-9 _ -`). */
export function isAccountId(value: unknown): value is string {
  return typeof value === 'string' && ACCOUNT_ID.test(value);
}

/** Throws a `TypeError` naming `where` when `value` is not a well-formed account id. */
export function checkAccountId(value: unknown, where: string): asserts value is string {
  if (!isAccountId(value)) {
    throw new TypeError(
      `${where}: the account id must be 1 to 64 letters, digits, "_" or "-" (it is a path segment of the account's callback URL), got ${typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value}.`,
    );
  }
}
