import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, inject } from 'vitest';

const opened: Redis[] = [];

/** A new connection, closed after the file's tests. Default: the shared test server. */
export function connect(url: string = inject('redisUrl'), options: RedisOptions = {}): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, ...options });
  // Outages are part of the tests; without a listener ioredis prints every failed reconnect.
  redis.on('error', () => {});
  opened.push(redis);
  return redis;
}

afterAll(() => {
  for (const redis of opened.splice(0)) redis.disconnect();
});

let sequence = 0;

/** A prefix no other test uses, so tests sharing one server never see each other's keys. */
export function uniquePrefix(label = 't'): string {
  return `fvtest:${label}:${process.pid}:${++sequence}:${Math.random().toString(36).slice(2)}:`;
}
