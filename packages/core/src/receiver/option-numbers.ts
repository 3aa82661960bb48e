import { ConfigurationError } from '../base/errors.js';

/** A number option of `createReceiver` (`name` as the caller wrote it), or its default. */
export function positive(name: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isFinite(resolved) || resolved <= 0) {
    throw new ConfigurationError(`Receiver option "${name}" must be a positive number.`);
  }
  return resolved;
}

/** A count option of `createReceiver`: a whole number of at least 1, or its default. */
export function whole(name: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1) {
    throw new ConfigurationError(`Receiver option "${name}" must be a whole number of at least 1.`);
  }
  return resolved;
}
