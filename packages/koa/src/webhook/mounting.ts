interface RouterLayer {
  methods?: unknown;
  stack?: unknown;
}

/**
 * True when this middleware runs as a handler of a @koa/router route
 * (`router.post(path, middleware)`): the router lists the layers that matched in
 * `ctx.matched`, and a route layer (one with methods) holds its handlers in `stack`.
 * Router-level `router.use()` layers have no methods and count as plain middleware.
 */
export function isRouteHandler(ctx: object, middleware: unknown): boolean {
  const matched = (ctx as { matched?: unknown }).matched;
  return (
    Array.isArray(matched) &&
    matched.some(
      (layer: RouterLayer) =>
        Array.isArray(layer.methods) &&
        layer.methods.length > 0 &&
        Array.isArray(layer.stack) &&
        layer.stack.includes(middleware),
    )
  );
}
