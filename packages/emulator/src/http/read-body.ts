import { readLimited } from '@faceverify/core/adapter';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { errorResponse } from './error-response.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Reads the request body once, up to `maxBytes`, whether it comes with a Content-Length or
 * chunked, and keeps it for the handlers (`c.get('body')`). A body over the limit is `413`
 * as soon as it passes the limit, without buffering the rest; a body that has not arrived
 * within `timeoutMs` is `408`, so a stalled sender cannot hold a connection.
 */
export function readBody(maxBytes: number, timeoutMs: number): MiddlewareHandler<AppEnv> {
  const tooLarge = (c: Parameters<MiddlewareHandler<AppEnv>>[0]) =>
    errorResponse(c, 413, 'payload_too_large', `The body exceeds ${maxBytes} bytes.`);
  return async (c, next) => {
    if (!METHODS_WITH_BODY.has(c.req.method)) {
      c.set('body', new Uint8Array());
      await next();
      return;
    }
    const declared = Number(c.req.header('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) return tooLarge(c);
    const stream = c.req.raw.body;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const read = stream ? await readLimited(stream, maxBytes, deadline.signal) : undefined;
    clearTimeout(timer);
    if (read?.kind === 'too-large') return tooLarge(c);
    if (deadline.signal.aborted) {
      return errorResponse(
        c,
        408,
        'body_timeout',
        `The request body did not arrive within ${timeoutMs} ms.`,
      );
    }
    if (read?.kind === 'failed') {
      return errorResponse(c, 400, 'invalid_request', 'The request body ended early.');
    }
    c.set('body', read?.bytes ?? new Uint8Array());
    await next();
  };
}
