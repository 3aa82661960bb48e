import type { Context } from 'hono';
import { routePath } from 'hono/route';

/**
 * True when this middleware runs for a route without a wildcard (`app.post(path, ...)`,
 * `app.use(path, ...)`): the route chose the path. `app.use(middleware)` and
 * `app.use('/api/*', middleware)` match many paths, so the middleware checks its own.
 */
export function isRouteHandler(c: Context): boolean {
  const route = routePath(c);
  return route !== '' && !route.includes('*');
}
