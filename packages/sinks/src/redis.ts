import type { VerificationCompletedEvent } from '@faceverify/core';
import { encodeSinkMessage, type MessageOptions } from './message.js';
import { durationOption, nameOption } from './options.js';
import { sinkFailure } from './sink-error.js';

/**
 * What the sink needs of an ioredis client (`Redis` or `Cluster`, ioredis 5 or 6): the
 * client is the application's, so the sink adds no command to it.
 */
export interface RedisScriptClient {
  /** `EVAL`: runs the sink's script with its keys and arguments. */
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** Options of `redisStreamSink`. */
export interface RedisStreamSinkOptions extends MessageOptions {
  /** The ioredis client. Set `commandTimeout` on it so a publish to an unreachable Redis fails instead of waiting. */
  redis: RedisScriptClient;
  /**
   * The stream's key. On a Redis Cluster, give it a hash tag (`{faceverify}:results`): the
   * deduplication keys take the stream's name as their prefix, so they land in its slot.
   */
  stream: string;
  /**
   * How long an event id is remembered, so the same result is not added again: at least
   * the time from a result's first attempt to its last possible redelivery (the sum of
   * `retryScheduleMs` over `maxDeliveryAttempts`, plus `replayWindowMs` for a dead letter
   * delivered again). Default 7 days.
   */
  dedupTtlMs?: number;
}

const DAY = 86_400_000;

// The deduplication key and the entry are written together or not at all (a script runs
// alone in Redis): an entry is never added without its key, nor a key kept without its entry.
const ADD_ONCE = `
local entry = redis.call('GET', KEYS[2])
if entry then return {0, entry} end
entry = redis.call('XADD', KEYS[1], '*', 'id', ARGV[1], 'message', ARGV[3])
redis.call('SET', KEYS[2], entry, 'PX', ARGV[2])
return {1, entry}
`;

/**
 * A `verification.completed` handler that adds each result to a Redis stream, once: the
 * entry (fields `id`, the event id, and `message`, a JSON `SinkMessage`) and a key
 * remembering the id are written by one script, so a retry of a result already added adds
 * nothing. A failure throws `SinkError`, and the Receiver retries the result later.
 *
 * Consumers can count on each result being in the stream once while its key lives
 * (`dedupTtlMs`), as durable as the server's persistence (`appendfsync`). Read it with a
 * consumer group; a consumer that crashes before `XACK` gets the entry again, so handle
 * each `id` idempotently.
 *
 * @example
 * import { redisStreamSink } from '@faceverify/sinks/redis';
 * receiver.on('verification.completed', redisStreamSink({ redis, stream: 'faceverify:results' }));
 */
export function redisStreamSink(
  options: RedisStreamSinkOptions,
): (event: VerificationCompletedEvent) => Promise<void> {
  const { redis } = options;
  const stream = nameOption('redisStreamSink', 'stream', options.stream, 'stream key');
  const ttlMs = durationOption('redisStreamSink', 'dedupTtlMs', options.dedupTtlMs, 7 * DAY);
  return async (event) => {
    const body = encodeSinkMessage(event, options);
    try {
      await redis.eval(ADD_ONCE, 2, stream, `${stream}:dedup:${event.id}`, event.id, ttlMs, body);
    } catch (error) {
      throw sinkFailure('redis', 'Adding the result to the Redis stream failed', error);
    }
  };
}
