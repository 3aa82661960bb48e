/** A request body sent in chunks with pauses, without Content-Length, counting what it sent. */
export interface SlowChunkedBody {
  stream: ReadableStream<Uint8Array>;
  /** Bytes handed to the HTTP client so far. */
  sent(): number;
  total: number;
}

export function slowChunkedBody(
  total: number,
  { chunkBytes = 16 * 1024, pauseMs = 2, fill = 0x20 } = {},
): SlowChunkedBody {
  let sent = 0;
  const chunk = new Uint8Array(chunkBytes).fill(fill);
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      const size = Math.min(chunkBytes, total - sent);
      controller.enqueue(size === chunkBytes ? chunk.slice() : chunk.slice(0, size));
      sent += size;
    },
  });
  return { stream, sent: () => sent, total };
}

/** A body whose bytes are sent as one chunk without Content-Length (chunked encoding). */
export function chunkedBody(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}
