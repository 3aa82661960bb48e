import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { errorResponse } from './error-response.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Requires `Authorization: Bearer <control token>` on the control endpoints when a token is
 * set (always when the emulator listens beyond this machine): whoever can change the
 * callback URL receives validly signed webhooks. Compared by digest, in constant time.
 */
export function controlTokenAuth(token: string | null): MiddlewareHandler<AppEnv> {
  const expected = token === null ? null : digest(token);
  return async (c, next) => {
    if (expected === null) {
      await next();
      return;
    }
    const presented = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      c.header('WWW-Authenticate', 'Bearer');
      return errorResponse(
        c,
        401,
        'control_token_required',
        'The control endpoints need the control token, as "Authorization: Bearer <token>". ' +
          'The emulator prints it at start (Control token), and startEmulator() returns it as ' +
          'controlToken.',
      );
    }
    await next();
  };
}
