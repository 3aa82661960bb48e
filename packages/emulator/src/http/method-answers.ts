import type { Context, Hono } from 'hono';
import type { AppEnv } from './app-env.js';
import { errorResponse } from './error-response.js';

/** The hosted page's completion call, the one endpoint a browser calls, maybe cross-origin. */
export const COMPLETE_PATH: RegExp = /^\/v1\/sessions\/[^/]+\/complete$/;

function pathPattern(path: string): RegExp {
  const escaped = path
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}$`);
}

/** The methods the app's routes answer on `path`, from the routes themselves. */
function methodsOf(app: Hono<AppEnv>, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    // `ALL` entries are middleware (`app.use`), not endpoints.
    if (route.method !== 'ALL' && pathPattern(route.path).test(path)) methods.add(route.method);
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/**
 * Answers what no route handles: `OPTIONS` (a CORS preflight for the completion call, the
 * list of methods elsewhere), `405` with `Allow` for a method the path does not take, and
 * `404` for a path that does not exist. API-key endpoints get no CORS headers: an API key
 * must never be sent from a browser.
 */
export function answerUnrouted(app: Hono<AppEnv>, c: Context<AppEnv>): Response {
  const allowed = methodsOf(app, c.req.path);
  if (allowed.length === 0) return errorResponse(c, 404, 'not_found', 'There is no such endpoint.');
  const allow = [...allowed, 'OPTIONS'].join(', ');
  if (c.req.method === 'OPTIONS') {
    c.header('Allow', allow);
    if (COMPLETE_PATH.test(c.req.path)) {
      c.header('Access-Control-Allow-Origin', '*');
      c.header('Access-Control-Allow-Methods', 'POST');
      c.header('Access-Control-Allow-Headers', 'Content-Type');
      c.header('Access-Control-Max-Age', '600');
    }
    return c.body(null, 204);
  }
  c.header('Allow', allow);
  return errorResponse(
    c,
    405,
    'method_not_allowed',
    `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(' or ')}.`,
  );
}
