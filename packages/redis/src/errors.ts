import { FaceverifyError } from '@faceverify/core';

/**
 * Why a store operation failed:
 * - `unreachable`: no answer from Redis (down, connection lost, retries exhausted, offline
 *   queue disabled, command timeout). Retrying later is safe.
 * - `rejected`: Redis answered with an error (for example out of memory, or a key of the
 *   wrong type under the store's prefix).
 * - `malformed`: a record under the prefix is not one this store wrote.
 * - `misconfigured`: Redis may delete the store's keys on its own (its `maxmemory-policy` is
 *   not `noeviction`) and `allowEviction` was not set; the message says how to fix it.
 */
export type RedisStoreFailure = 'unreachable' | 'rejected' | 'malformed' | 'misconfigured';

/** A RedisStore operation could not be carried out. Never carries a connection password. */
export class RedisStoreError extends FaceverifyError {
  /** The Store method that failed, such as `leaseDue`. */
  readonly operation: string;
  readonly failure: RedisStoreFailure;

  constructor(operation: string, failure: RedisStoreFailure, message: string) {
    super('store_error', message);
    this.operation = operation;
    this.failure = failure;
  }
}

const URL_CREDENTIALS = /(\w+:\/\/)[^@/\s]*@/g;
/**
 * The shortest password hidden wherever it stands in a message. Shorter ones are hidden only
 * where a connection URL places them.
 */
const MIN_FREE_TEXT_SECRET = 4;

/** Removes passwords, and credentials written into a connection URL, from a message. */
export function redact(message: string, secrets: readonly string[]): string {
  let text = message.replace(URL_CREDENTIALS, '$1***@');
  // Whole words only: a one-letter password must not turn "max" into "ma***". And none
  // shorter than MIN_FREE_TEXT_SECRET: "a", "1" or "0" stands alone in every sentence and
  // address ("127.0.0.***"), and hiding each would hide nothing but the message.
  for (const secret of secrets) {
    if (secret.length < MIN_FREE_TEXT_SECRET) continue;
    const pattern = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    text = text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${pattern}(?![\\p{L}\\p{N}])`, 'gu'), '***');
  }
  return text;
}

function failureOf(error: unknown): RedisStoreFailure {
  // ioredis marks an error reply from the server with this name; everything else it raises
  // (connection closed, retries exhausted, offline queue disabled, timeouts) means no answer.
  return error instanceof Error && error.name === 'ReplyError' ? 'rejected' : 'unreachable';
}

const DESCRIPTION: Record<RedisStoreFailure, string> = {
  unreachable: 'Redis did not answer',
  rejected: 'Redis answered with an error',
  malformed: 'Redis holds a record this store cannot read',
  misconfigured: 'Redis may evict the keys of this store',
};

/**
 * Wraps what went wrong in one operation. The original error is not attached as `cause`:
 * ioredis errors carry the command and its arguments, and nothing that could hold a
 * credential may leave the store. Its message is kept, redacted.
 */
export function storeError(
  operation: string,
  error: unknown,
  secrets: readonly string[],
  failure: RedisStoreFailure = failureOf(error),
): RedisStoreError {
  const detail = redact(error instanceof Error ? error.message : String(error), secrets);
  return new RedisStoreError(
    operation,
    failure,
    `RedisStore.${operation} failed: ${DESCRIPTION[failure]} (${detail})`,
  );
}
