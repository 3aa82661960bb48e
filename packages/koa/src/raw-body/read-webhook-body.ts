import type { BodyReading } from '@faceverify/core/adapter';
import { nodeBodyTaken, rawBodyReader, textAsSent } from '@faceverify/core/adapter';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { HINTS } from './hints.js';

const readRawBody = rawBodyReader(getRawBody);

/**
 * The exact bytes of the request body, read at most once through raw-body (as Koa's body
 * parsers read it) and never past `limit`: raw-body's own promise. When a body parser got
 * there first, its `rawBody` text is used only when provably exact.
 */
export function readWebhookBody(ctx: Context, limit: number): BodyReading {
  if (nodeBodyTaken(ctx.req)) {
    const rawBody = (ctx.request as { rawBody?: unknown }).rawBody;
    if (typeof rawBody !== 'string') return { kind: 'unavailable', hint: HINTS.streamTaken };
    return textAsSent(rawBody, ctx.req.headers, HINTS.bodyParserText);
  }
  return readRawBody(ctx.req, limit);
}
