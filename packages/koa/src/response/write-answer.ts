import type { ReceiverResponse } from '@faceverify/core';
import type { Context } from 'koa';

/** Writes the Receiver's answer as it is: status, headers and body. */
export function writeAnswer(ctx: Context, answer: ReceiverResponse): void {
  ctx.status = answer.status;
  ctx.set(answer.headers);
  ctx.body = answer.body;
}

/**
 * After refusing a body it did not read, the connection is closed once the answer is sent:
 * otherwise Node keeps the socket and the sender keeps pushing the rest of the body.
 * (HTTP/2 has no such header and ends the stream by itself.)
 */
export function closeAfterAnswer(ctx: Context): void {
  if (ctx.req.httpVersionMajor === 1) ctx.set('connection', 'close');
}
