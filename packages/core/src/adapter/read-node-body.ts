/** The parts of Node's `IncomingMessage` the readers use; no `node:` import needed. */
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

/**
 * True when something read the stream before the adapter: a body parser (Express's
 * body-parser also marks the request with `_body`), or a `data` listener.
 */
export function nodeBodyTaken(req: NodeRequestLike): boolean {
  return (
    req.readableEnded || req.readableDidRead === true || (req as { _body?: unknown })._body === true
  );
}
