import type { BodyRead } from './body-read.js';
import { concatBytes } from './read-limited.js';

/** The parts of Node's `IncomingMessage` the reader uses; no `node:` import needed. */
export interface NodeRequestLike {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly readableEnded: boolean;
  readonly readableDidRead?: boolean;
  readonly destroyed?: boolean;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
}

const ABORTED = 'The request was aborted before its body was complete.';
const SHORT = 'The body is not as long as its Content-Length header says.';

/**
 * True when something read the stream before the adapter: a body parser (Express's
 * body-parser also marks the request with `_body`), or a `data` listener.
 */
export function nodeBodyTaken(req: NodeRequestLike): boolean {
  return (
    req.readableEnded || req.readableDidRead === true || (req as { _body?: unknown })._body === true
  );
}

/**
 * Reads a Node request body to its end, never buffering past `limit`: on the first byte
 * over it, or when `signal` aborts, reading stops and the stream is paused (the adapter
 * answers with `Connection: close`, so the rest is never read). Check `nodeBodyTaken` first.
 * For adapter authors.
 *
 * @example
 * const read = nodeBodyTaken(req) ? earlierRead(req) : await readNodeBody(req, limit, signal);
 */
export function readNodeBody(
  req: NodeRequestLike,
  limit: number,
  signal: AbortSignal,
): Promise<BodyRead> {
  const declared = req.headers['content-length'];
  // Its 'close' is past: waiting for events would only end at the body deadline.
  if (req.destroyed === true) return Promise.resolve({ kind: 'unreadable', reason: ABORTED });
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    const finish = (read: BodyRead) => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('close', onClose);
      req.removeListener('error', onClose);
      signal.removeEventListener('abort', onClose);
      req.pause();
      resolve(read);
    };
    const onData = (chunk: Uint8Array) => {
      total += chunk.byteLength;
      if (total > limit) finish({ kind: 'too-large' });
      else chunks.push(chunk);
    };
    const onEnd = () => {
      if (typeof declared === 'string' && Number(declared) !== total) {
        finish({ kind: 'unreadable', reason: SHORT });
      } else {
        // A body that came in one chunk (most webhooks) is used as it is, without a copy: it
        // only goes to the Receiver, which reads it through its view.
        const bytes = chunks.length === 1 ? chunks[0]! : concatBytes(chunks, total);
        finish({ kind: 'bytes', bytes });
      }
    };
    // An error, or a close before the end: the sender went away mid-body.
    const onClose = () => finish({ kind: 'unreadable', reason: ABORTED });
    signal.addEventListener('abort', onClose, { once: true });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
  });
}
