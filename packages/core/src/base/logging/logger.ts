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
export function redactUrl(value: unknown): unknown {
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

// With no logger option, warnings and errors still reach the console: a newcomer must see
// "raw body unavailable" without configuring anything. Debug and info stay quiet.
const CONSOLE_PREFIX = '[faceverify]';
const defaultLogger: Logger = {
  warn: (message, fields) => console.warn(CONSOLE_PREFIX, message, ...(fields ? [fields] : [])),
  error: (message, fields) => console.error(CONSOLE_PREFIX, message, ...(fields ? [fields] : [])),
};

// What the docs tell an operator to watch, printed by the default logger though it drops info.
const printNotice: Write = (message, fields) =>
  console.info(CONSOLE_PREFIX, message, ...(fields ? [redact(fields)] : []));

/**
 * Level-checked writes, every field set redacted. `undefined` means the default: warnings
 * and errors to the console. `false` silences everything. Fields are passed only when there
 * are some, so `console` as a logger prints no stray `{}`.
 */
export function createLog(option: Logger | false | undefined): Log {
  const logger = option === undefined ? defaultLogger : option === false ? undefined : option;
  const write =
    (level: keyof Logger): Write =>
    (message, fields) => {
      const write = logger?.[level];
      // Without a logger for this level, the fields are not even redacted.
      if (!write) return;
      if (fields === undefined || Object.keys(fields).length === 0) write.call(logger, message);
      else write.call(logger, message, redact(fields));
    };
  return {
    debug: write('debug'),
    info: write('info'),
    notice: option === undefined ? printNotice : write('info'),
    warn: write('warn'),
    error: write('error'),
    enabled: (level: keyof Logger): boolean => typeof logger?.[level] === 'function',
  };
}

type Write = (message: string, fields?: Record<string, unknown>) => void;

/** A logger's levels with every field set redacted (see `createLog`). */
export interface Log {
  debug: Write;
  info: Write;
  /**
   * A line the docs tell an operator to watch ("A user's records were erased.", webhooks
   * verified with an older secret): at info on a logger of yours, and printed by the default
   * logger too, which drops every other info line.
   */
  notice: Write;
  warn: Write;
  error: Write;
  /** Whether `level` is written at all: hot paths skip building fields nobody reads. */
  enabled: (level: keyof Logger) => boolean;
}
