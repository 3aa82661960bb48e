import type { BodyReader } from '@faceverify/core/adapter';
import { nodeBodyTaken, rawBodyReader, textAsSent } from '@faceverify/core/adapter';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { HINTS } from './hints.js';

const readRawBody = rawBodyReader(getRawBody);

/**
 * The exact bytes of the request body, read at most once through raw-body (as Koa's body
 * parsers read it) and never past `limit`. When a
 * body parser got there first, its `rawBody` text is used only when provably exact.
 */
export const readWebhookBody: BodyReader<Context> = async (ctx, limit, signal) => {
  if (nodeBodyTaken(ctx.req)) {
    const rawBody = (ctx.request as { rawBody?: unknown }).rawBody;
    if (typeof rawBody !== 'string') return { kind: 'unavailable', hint: HINTS.streamTaken };
    return textAsSent(rawBody, ctx.req.headers, HINTS.bodyParserText);
  }
  const read = await readRawBody(ctx.req, limit, signal);
  // The stream is spent. @koa/bodyparser and koa-bodyparser skip a request with this
  // flag instead of failing on it, so `passThrough` can hand over to middleware behind them.
  if (read.kind === 'bytes') Object.assign(ctx, { disableBodyParser: true });
  return read;
};
