export type LimitedRead =
  | { kind: 'bytes'; bytes: Uint8Array<ArrayBuffer> }
  | { kind: 'too-large' }
  | { kind: 'failed'; error: unknown };

function concat(chunks: Uint8Array[], total: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Reads a body stream to its end, but stops as soon as it passes `limit` bytes and cancels
 * the rest: a chunked body (no Content-Length) is never buffered past the limit. For the
 * Fetch-API adapters, and for downloads of untrusted size.
 */
export async function readLimited(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<LimitedRead> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { kind: 'bytes', bytes: concat(chunks, total) };
      total += value.byteLength;
      if (total > limit) {
        // Not awaited: the answer must not wait for the sender to notice.
        reader.cancel().catch(() => undefined);
        return { kind: 'too-large' };
      }
      chunks.push(value);
    }
  } catch (error) {
    return { kind: 'failed', error };
  }
}
