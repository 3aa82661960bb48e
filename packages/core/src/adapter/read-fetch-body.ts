import type { BodyRead } from './body-read.js';
import { readLimited } from './read-limited.js';

const EMPTY = new Uint8Array(0);

/**
 * Reads a Fetch `Request` body once, never buffering past `limit`, stopping when `signal`
 * aborts. A body someone already read is `unavailable` with `consumedHint` (the fix).
 * For adapter authors.
 *
 * @example
 * const read = await readFetchBody(request, limit, signal, 'Read the body only once.');
 */
export async function readFetchBody(
  request: Request,
  limit: number,
  signal: AbortSignal,
  consumedHint: string,
): Promise<BodyRead> {
  if (request.bodyUsed) return { kind: 'unavailable', hint: consumedHint };
  if (request.body === null) return { kind: 'bytes', bytes: EMPTY };
  const read = await readLimited(request.body, limit, signal);
  if (read.kind === 'failed') {
    return { kind: 'unreadable', reason: 'The request body could not be read to its end.' };
  }
  return read;
}
