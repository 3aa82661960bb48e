import type { BodyRead, BodyReading } from '@faceverify/core/adapter';
import { bytesAsSent, rawBodyReader } from '@faceverify/core/adapter';
import type { Request } from 'express';
import getRawBody from 'raw-body';
import { capturedBody } from './captured-body.js';
import { HINTS } from './hints.js';

/**
 * Bytes a body parser already read (a parser that ran `captureRawBody` read the stream too):
 * usable only when they are the bytes as sent.
 */
function earlierRead(req: Request): BodyRead {
  const { rawBody } = req as { rawBody?: unknown };
  // express.raw() leaves the bytes as the body; Google Cloud Functions (Firebase) as rawBody.
  const kept = capturedBody(req) ?? [req.body, rawBody].find((value) => Buffer.isBuffer(value));
  if (kept) return bytesAsSent(kept, req.headers['content-encoding'], HINTS.decoded);
  if (req.body === undefined) return { kind: 'unavailable', hint: HINTS.streamTaken };
  const written = writtenAgain(req.body);
  return written
    ? { kind: 'unavailable', hint: HINTS.parsedFirst, kept: written }
    : { kind: 'unavailable', hint: HINTS.parsedFirst };
}

/**
 * A parsed body written out again as compact JSON, as the service writes webhooks: never
 * trusted as the webhook, only checked against its signature to tell the service's request
 * (a setup fault to report) from a stranger's.
 */
function writtenAgain(body: unknown): Uint8Array | undefined {
  try {
    const json = JSON.stringify(body);
    return typeof json === 'string' ? Buffer.from(json) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The exact bytes of the request body, read at most once through raw-body (as body-parser
 * reads it) and never past `limit`: raw-body's own promise. Bytes a body parser already read
 * are used only when they are the bytes as sent (`captureRawBody`, `express.raw()`, the
 * `rawBody` of Google Cloud Functions).
 */
export const readWebhookBody: (req: Request, limit: number) => BodyReading = rawBodyReader(
  getRawBody,
  earlierRead,
);
