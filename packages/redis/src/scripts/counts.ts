import { LuaScript } from '../lua-script.js';

/**
 * KEYS: counts, closed:completed, closed:expired. ARGV: now.
 * Returns [pending, delivering, completed, expired]. Open records are counted as they change
 * state; closed ones are the members of their set whose purge time has not passed (older
 * members are trimmed here), so no call scans the records.
 */
export const COUNTS = new LuaScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
local open = redis.call('HMGET', KEYS[1], 'pending', 'delivering')
return {
  tonumber(open[1]) or 0,
  tonumber(open[2]) or 0,
  redis.call('ZCARD', KEYS[2]),
  redis.call('ZCARD', KEYS[3]),
}
`);
