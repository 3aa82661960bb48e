import { afterAll, beforeAll } from 'vitest';
import { type RedisServer, type StartOptions, startRedisServer } from './redis-server.js';

/**
 * A redis-server of the test file's own, for tests that change server-wide state (command
 * statistics, the script cache, passwords, cluster mode). Returns a getter for it.
 */
export function useRedisServer(options: StartOptions = {}): () => RedisServer {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await startRedisServer(options);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('the redis-server of this file did not start');
    return server;
  };
}
