export type LimitedRead =
  | { kind: 'bytes'; bytes: Uint8Array<ArrayBuffer> }
  | { kind: 'too-large' }
  | { kind: 'failed'; error: unknown };

export function concatBytes(chunks: readonly Uint8Array[], total: number): Uint8Array<ArrayBuffer> {
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
 * the rest: a chunked body (no Content-Length) is never buffered past the limit. Aborting
 * `signal` cancels the stream too. For the Fetch-API adapters, and for downloads of
 * untrusted size.
 *
 * @example
 * const read = await readLimited(request.body, 256 * 1024);
 * if (read.kind === 'bytes') console.log(read.bytes.byteLength);
 */
export async function readLimited(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  signal?: AbortSignal,
): Promise<LimitedRead> {
  const reader = stream.getReader();
  // Not awaited: the answer must not wait for the sender to notice.
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) return { kind: 'failed', error: signal.reason };
      if (done) return { kind: 'bytes', bytes: concatBytes(chunks, total) };
      total += value.byteLength;
      if (total > limit) {
        cancel();
        return { kind: 'too-large' };
      }
      chunks.push(value);
    }
  } catch (error) {
    return { kind: 'failed', error };
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}
