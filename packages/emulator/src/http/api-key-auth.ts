import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AccountConfig } from '../accounts/resolve-accounts.js';
import { looksLikeJwt } from '../credentials.js';
import type { AppEnv } from './app-env.js';
import { type ErrorCode, errorResponse } from './error-response.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Each key's digest, with the key's name and its account's id. */
function keysByDigest(
  accounts: readonly AccountConfig[],
): Map<string, { keyId: string; accountId: string }> {
  return new Map(
    accounts.flatMap(({ id, apiKeys }) =>
      apiKeys.map((key, index) => [
        digest(key),
        { keyId: `${id}/key-${index + 1}`, accountId: id },
      ]),
    ),
  );
}

/**
 * Requires `Authorization: Bearer <API key>` with a key of one of `accounts`, and tells the
 * handlers which key and which account it was. Keys are looked up by digest, so lookup time
 * says nothing about how close a guess was, and no answer ever repeats the value that was
 * sent.
 */
export function apiKeyAuth(accounts: readonly AccountConfig[]): MiddlewareHandler<AppEnv> {
  const keys = keysByDigest(accounts);
  return async (c, next) => {
    const refuse = (error: ErrorCode, message: string) => {
      c.header('WWW-Authenticate', 'Bearer');
      return errorResponse(c, 401, error, message);
    };
    const presented = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
    if (presented === undefined) {
      return refuse(
        'invalid_api_key',
        'Missing API key. Send it as "Authorization: Bearer <API key>".',
      );
    }
    if (looksLikeJwt(presented)) {
      return refuse(
        'dashboard_token_not_accepted',
        'This is a dashboard session token (a JWT), not an API key. Dashboard sessions are not ' +
          'accepted by the API: use an API key from Settings, from your server only.',
      );
    }
    const key = keys.get(digest(presented));
    if (key === undefined) return refuse('invalid_api_key', 'The API key is not valid.');
    c.set('apiKeyId', key.keyId);
    c.set('accountId', key.accountId);
    await next();
  };
}
