import type { ReceiverResponse } from '@faceverify/core';
import type { Request, Response } from 'express';

/** Writes the Receiver's answer as it is: status, headers and body, nothing added. */
export function writeAnswer(res: Response, answer: ReceiverResponse): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.end(answer.body);
}

/**
 * After refusing a body it did not read, the connection is closed once the answer is sent:
 * otherwise Node keeps the socket and the sender keeps pushing the rest of the body.
 * (HTTP/2 has no such header and ends the stream by itself.)
 */
export function closeAfterAnswer(req: Request, res: Response): void {
  if (req.httpVersionMajor === 1) res.setHeader('connection', 'close');
}
