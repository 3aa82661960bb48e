import { randomBytes } from 'node:crypto';

/** A fresh API key, recognisable as a test key: `fv_test_` and 32 hex characters. */
export function generateApiKey(): string {
  return `fv_test_${randomBytes(16).toString('hex')}`;
}

/** A fresh webhook signing secret: `whsec_` and 48 hex characters. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('hex')}`;
}

/** A fresh control token for the `/__emulator` endpoints: `fvctl_` and 48 hex characters. */
export function generateControlToken(): string {
  return `fvctl_${randomBytes(24).toString('hex')}`;
}

const JWT_SHAPE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Whether a bearer value has the shape of a JWT (three base64url parts, the header starting
 * with `eyJ`, the encoding of `{"`). Dashboard sessions are JWTs and are not API keys.
 */
export function looksLikeJwt(value: string): boolean {
  return JWT_SHAPE.test(value);
}
