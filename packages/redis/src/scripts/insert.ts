import { LuaScript } from '../lua-script.js';

/**
 * KEYS: record, user index, due set, counts, closed:completed, closed:expired.
 * ARGV: key, state, dueAt, then the record's fields as name/value pairs.
 * Returns 1 when added, 0 when the key exists.
 */
export const INSERT = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local key, state, dueAt = ARGV[1], ARGV[2], ARGV[3]
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
-- A key used again after its earlier record was purged must not be counted twice.
redis.call('ZREM', KEYS[5], key)
redis.call('ZREM', KEYS[6], key)
redis.call('ZADD', KEYS[2], 'inf', key)
redis.call('PERSIST', KEYS[2])
if state == 'pending' or state == 'delivering' then
  redis.call('ZADD', KEYS[3], dueAt, key)
  redis.call('HINCRBY', KEYS[4], state, 1)
else
  -- Inserted closed, it has no retention of its own: it is kept, as MemoryStore keeps it.
  redis.call('ZADD', state == 'completed' and KEYS[5] or KEYS[6], 'inf', key)
end
return 1
`);
