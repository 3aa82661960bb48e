import { ConfigurationError } from '@faceverify/core';

/**
 * A duration option of a sink: `fallback` when not given, else a positive whole number of
 * milliseconds, or a `ConfigurationError` naming the sink and the option.
 */
export function durationOption(
  factory: string,
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new ConfigurationError(
      `${factory}: \`${name}\` must be a positive whole number of milliseconds.`,
    );
  }
  return value;
}

/** A required name option of a sink (a stream, a subject), or a `ConfigurationError`. */
export function nameOption(factory: string, name: string, value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new ConfigurationError(`${factory}: \`${name}\` must name the ${what}.`);
  }
  return value;
}
