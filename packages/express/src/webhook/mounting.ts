import type { Request } from 'express';

interface RouteLayer {
  handle?: unknown;
}

/**
 * True when this middleware runs as a handler of the route Express matched (`app.post(path,
 * middleware)`). `req.route` alone is not enough: Express leaves it set for middleware
 * running after an earlier route called `next()`.
 */
export function isRouteHandler(req: Request, middleware: unknown): boolean {
  const stack = (req.route as { stack?: unknown } | undefined)?.stack;
  return Array.isArray(stack) && stack.some((layer: RouteLayer) => layer.handle === middleware);
}
