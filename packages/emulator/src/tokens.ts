import { createHash, randomBytes } from 'node:crypto';

const TOKEN_BYTES = 32;

/** A hosted session token: 32 random bytes, base64url, safe in a URL path. */
export function createSessionToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * The only form in which a session token is kept. A leak of the emulator's state then
 * gives no usable token, as the interface requires of the service.
 */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
