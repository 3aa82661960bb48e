import type { ReceiverResponse } from '@faceverify/core';
import type { Context } from 'koa';

/**
 * Writes the answer as it is: status, headers and body. With `close`, the rest of the body
 * is not read, and the connection is closed once the answer is sent: otherwise Node keeps
 * the socket and the sender keeps pushing the rest of a body nobody reads. (HTTP/2 has no
 * such header.)
 */
export function writeAnswer(ctx: Context, answer: ReceiverResponse, close: boolean): void {
  if (close) ctx.req.pause();
  ctx.status = answer.status;
  ctx.set(answer.headers);
  if (close && ctx.req.httpVersionMajor === 1) ctx.set('connection', 'close');
  ctx.body = answer.body;
}
