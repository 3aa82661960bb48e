import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { errorResponse } from './error-response.js';

/**
 * Refuses requests whose `Host` is not one of the emulator's own names with its port. A web
 * page can make a browser reach a loopback server through a name it controls (DNS
 * rebinding); such requests carry that name as their `Host`, so they are refused here
 * before they reach the control endpoints or the API.
 */
export function hostGuard(allowedHosts: () => ReadonlySet<string>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const host = c.req.header('host')?.toLowerCase();
    if (host === undefined || !allowedHosts().has(host)) {
      return errorResponse(
        c,
        421,
        'misdirected_request',
        `The emulator does not answer to the host ${JSON.stringify(host ?? '')}. Call it as ` +
          `${[...allowedHosts()].slice(0, 3).join(', ')}, or, for another name (a container ` +
          'name, a proxy), add it with --allowed-host or the allowedHosts option.',
      );
    }
    await next();
  };
}
