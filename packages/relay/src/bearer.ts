import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an `Authorization` header carries `Bearer <token>`. Both sides are hashed first, so
 * the comparison takes the same time whatever the header holds, its length included.
 */
export function bearerMatches(header: string | null, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  const given = createHash('sha256')
    .update(match?.[1] ?? '')
    .digest();
  const expected = createHash('sha256').update(token).digest();
  return timingSafeEqual(given, expected) && match !== null;
}
