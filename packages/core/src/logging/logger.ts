/**
 * Where faceverify writes what it does. Any object with these methods works, including
 * `console`, pino and winston loggers. Fields never contain secrets, API keys or signed URLs.
 */
export interface Logger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

const SENSITIVE_KEY = /secret|api[-_]?key|authorization|password|signature/i;
// Session tokens are short-lived credentials: a prefix is enough to correlate log lines.
const TOKEN_KEY = /token/i;
const SIGNED_URL_KEY = /^frontImageUrl$/;

/** A signed URL is a credential until it expires: keep its origin and path, drop the query. */
function redactUrl(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    const url = new URL(value);
    return `${url.origin}${url.pathname}${url.search ? '?[redacted]' : ''}`;
  } catch {
    return '[redacted]';
  }
}

/**
 * Copies log fields with secrets, keys, tokens and signatures replaced and signed image
 * URLs stripped of their query. Nested objects are redacted too, to a bounded depth.
 */
export function redact(fields: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SIGNED_URL_KEY.test(key)) out[key] = redactUrl(value);
    else if (SENSITIVE_KEY.test(key)) out[key] = '[redacted]';
    else if (TOKEN_KEY.test(key))
      out[key] = typeof value === 'string' ? `${value.slice(0, 6)}…` : value;
    else if (value && typeof value === 'object' && !Array.isArray(value) && depth < 4) {
      out[key] = redact(value as Record<string, unknown>, depth + 1);
    } else out[key] = value;
  }
  return out;
}

/** Level-checked writes through an optional logger, with every field set redacted. */
export function createLog(logger: Logger | undefined) {
  const write =
    (level: keyof Logger) =>
    (message: string, fields: Record<string, unknown> = {}): void => {
      const write = logger?.[level];
      // Without a logger for this level, the fields are not even redacted.
      if (write) write.call(logger, message, redact(fields));
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

export type Log = ReturnType<typeof createLog>;
