/** The sinks, by the subpath that exports each. */
export type SinkName = 'redis' | 'nats' | 'rabbitmq' | 'postgres' | 'http';

// A connection string may carry a password, an internal URL a token: neither is repeated.
const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;

/**
 * A sink could not deliver a result. Thrown from the sink's handler, so the Receiver keeps
 * the result and retries it (`retryScheduleMs`), then gives it up as a dead letter. Its
 * message names the sink and what failed, never a URL, a secret or what the result holds;
 * the client's own error is not attached (its properties may hold the connection string).
 */
export class SinkError extends Error {
  /** Which sink failed. */
  readonly sink: SinkName;
  /** The client's error code, when it had one (`ECONNREFUSED`, `503`, ...). */
  readonly clientCode: string | undefined;

  constructor(sink: SinkName, message: string, clientCode?: string) {
    super(message);
    this.name = 'SinkError';
    this.sink = sink;
    this.clientCode = clientCode;
  }
}

/** A `SinkError` for `what` failing with a client's `error`: its message, URLs removed. */
export function sinkFailure(sink: SinkName, what: string, error: unknown): SinkError {
  if (error instanceof SinkError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return new SinkError(
    sink,
    `${what}: ${detail.replace(URL_PATTERN, '<url>')}`,
    typeof code === 'string' || typeof code === 'number' ? String(code) : undefined,
  );
}
