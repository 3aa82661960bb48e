// RFC 3986 `pchar` without percent-escapes: what a token may hold and stay one path segment.
const SEGMENT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]{1,1024}$/;

/**
 * Refuses a session token that is not one URL path segment. `encodeURIComponent` leaves
 * `.` and `..` as they are, and URL resolution then sends the keyed request to another path
 * (`/v1/sessions/..` is `/v1/`); a token is never such a thing, nor empty, nor has `/`.
 */
export function assertPathSegment(token: unknown): asserts token is string {
  if (!isPathSegment(token)) {
    throw new TypeError(
      'A session token must be one URL path segment: letters, digits and -._~!$&\'()*+,;=:@, at most 1024 characters, and not "." or "..". Pass the token from createSession() or verify_url as it is.',
    );
  }
}

/** Whether `token` could be a session token (see {@link assertPathSegment}). */
export function isPathSegment(token: unknown): token is string {
  return typeof token === 'string' && SEGMENT.test(token) && !/^\.+$/.test(token);
}
