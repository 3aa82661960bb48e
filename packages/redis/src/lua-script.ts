import { createHash } from 'node:crypto';
import type { RedisClient } from './client.js';

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * A Lua script run by its SHA1 (EVALSHA), falling back to sending its source (EVAL) when the
 * server does not know it: after a Redis restart, a failover or SCRIPT FLUSH. EVAL caches
 * the script again, so the next call is an EVALSHA that succeeds.
 *
 * The store runs scripts itself rather than through `defineCommand`, which would add methods
 * to a client the application owns and shares.
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(
    redis: RedisClient,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return await redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
