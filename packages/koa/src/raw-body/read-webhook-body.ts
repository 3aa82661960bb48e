import {
  exactTextBytes,
  type Receiver,
  type ReceiverResponse,
  rawBodyErrorAnswer,
} from '@faceverify/core';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { HINTS } from './hints.js';

export type BodyOutcome =
  | { kind: 'bytes'; bytes: Uint8Array }
  | {
      kind: 'refused';
      answer: ReceiverResponse;
      /** Reading stopped part-way: the rest of the body is still on the connection. */
      leftUnread: boolean;
    };

/** A body parser got there first: its `rawBody` text is used only when provably exact. */
function parsedBody(ctx: Context, receiver: Receiver): BodyOutcome {
  const rawBody = (ctx.request as { rawBody?: unknown }).rawBody;
  let hint: string = HINTS.streamTaken;
  if (typeof rawBody === 'string') {
    const proof = exactTextBytes(rawBody, ctx.req.headers);
    if ('bytes' in proof) return { kind: 'bytes', bytes: proof.bytes };
    hint = HINTS.bodyParserText(proof.reason);
  }
  return {
    kind: 'refused',
    answer: receiver.reject('raw_body_unavailable', hint),
    leftUnread: false,
  };
}

/**
 * The exact bytes of the request body, read at most once and never past
 * `receiver.maxBodyBytes`: a Content-Length over the limit is refused before reading, and
 * a chunked body is cut off as soon as it passes the limit.
 */
export async function readWebhookBody(ctx: Context, receiver: Receiver): Promise<BodyOutcome> {
  const { req } = ctx;
  if (req.readableEnded || req.readableDidRead) return parsedBody(ctx, receiver);
  const length = req.headers['content-length'];
  try {
    const bytes = await getRawBody(req, {
      limit: receiver.maxBodyBytes,
      ...(length === undefined ? {} : { length }),
    });
    // The stream is spent. @koa/bodyparser and koa-bodyparser skip a request with this
    // flag instead of failing on it, so `passThrough` can hand over to middleware behind them.
    (ctx as { disableBodyParser?: boolean }).disableBodyParser = true;
    return { kind: 'bytes', bytes };
  } catch (error) {
    return {
      kind: 'refused',
      answer: rawBodyErrorAnswer(error, receiver, HINTS.streamTaken),
      leftUnread: true,
    };
  }
}
