import type { BodyReading } from '@faceverify/core/adapter';
import { nodeBodyTaken, rawBodyReader } from '@faceverify/core/adapter';
import type { FastifyRequest } from 'fastify';
import getRawBody from 'raw-body';
import { STREAM_TAKEN_HINT } from './hints.js';

const readRawBody = rawBodyReader(getRawBody);

/**
 * The exact bytes of the request body, read from the socket's stream at most once through
 * raw-body and never past `limit`: raw-body's own promise. The plugin's content-type parser
 * left the stream unread, so only a hook that read it first can have taken the bytes.
 */
export function readWebhookBody(request: FastifyRequest, limit: number): BodyReading {
  if (nodeBodyTaken(request.raw)) return { kind: 'unavailable', hint: STREAM_TAKEN_HINT };
  return readRawBody(request.raw, limit);
}
