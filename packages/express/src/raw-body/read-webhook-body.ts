import { type Receiver, type ReceiverResponse, rawBodyErrorAnswer } from '@faceverify/core';
import type { Request } from 'express';
import getRawBody from 'raw-body';
import { capturedBody } from './captured-body.js';
import { HINTS } from './hints.js';

export type BodyOutcome =
  | { kind: 'bytes'; bytes: Uint8Array }
  | {
      kind: 'refused';
      answer: ReceiverResponse;
      /** Reading stopped part-way: the rest of the body is still on the connection. */
      leftUnread: boolean;
    };

function isIdentity(contentEncoding: string | undefined): boolean {
  const value = contentEncoding?.trim().toLowerCase() ?? '';
  return value === '' || value === 'identity';
}

/** Something already took the stream: a body parser, or a 'data' listener. */
function streamTaken(req: Request): boolean {
  return req.readableEnded || req.readableDidRead || (req as { _body?: unknown })._body === true;
}

/** Bytes a parser read: exact only when nothing was decompressed on the way. */
function parserBytes(
  bytes: Uint8Array,
  contentEncoding: string | undefined,
  receiver: Receiver,
): BodyOutcome {
  if (isIdentity(contentEncoding)) return { kind: 'bytes', bytes };
  const answer = receiver.reject('raw_body_unavailable', HINTS.decoded);
  return { kind: 'refused', answer, leftUnread: false };
}

/**
 * The exact bytes of the request body, read at most once and never past
 * `receiver.maxBodyBytes`: a Content-Length over the limit is refused before reading, and
 * a chunked body is cut off as soon as it passes the limit. Bytes a body parser already
 * read are used only when they are the bytes as sent (`captureRawBody`, `express.raw()`,
 * the `rawBody` of Google Cloud Functions).
 */
export async function readWebhookBody(req: Request, receiver: Receiver): Promise<BodyOutcome> {
  const captured = capturedBody(req);
  if (captured) return parserBytes(captured.bytes, captured.contentEncoding, receiver);
  if (streamTaken(req)) {
    // express.raw() leaves the bytes as the body; Google Cloud Functions (Firebase) as rawBody.
    const kept: unknown = Buffer.isBuffer(req.body)
      ? req.body
      : (req as { rawBody?: unknown }).rawBody;
    if (Buffer.isBuffer(kept)) {
      return parserBytes(kept, req.headers['content-encoding'], receiver);
    }
    const hint = req.body === undefined ? HINTS.streamTaken : HINTS.parsedFirst;
    return {
      kind: 'refused',
      answer: receiver.reject('raw_body_unavailable', hint),
      leftUnread: false,
    };
  }
  const length = req.headers['content-length'];
  try {
    const bytes = await getRawBody(req, {
      limit: receiver.maxBodyBytes,
      ...(length === undefined ? {} : { length }),
    });
    // The stream is spent. Body parsers of Express 4 skip a request marked this way
    // instead of failing on it, so `passThrough` can hand over to routes behind them.
    (req as { _body?: boolean })._body = true;
    return { kind: 'bytes', bytes };
  } catch (error) {
    return {
      kind: 'refused',
      answer: rawBodyErrorAnswer(error, receiver, HINTS.streamTaken),
      leftUnread: true,
    };
  }
}
