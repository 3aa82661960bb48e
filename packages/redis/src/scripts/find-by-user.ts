import { LuaScript } from '../lua-script.js';

/**
 * KEYS: user index. ARGV: record key prefix, externalUserId.
 * Returns [[key, fields], ...] of the user's records that still exist, and drops from the
 * index the keys whose record was purged after its retention.
 */
export const FIND_BY_USER = new LuaScript(`
local found = {}
for _, key in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local recordKey = ARGV[1] .. key
  -- The user check also drops a key that was purged and then used again for another user.
  if redis.call('HGET', recordKey, 'user') == ARGV[2] then
    found[#found + 1] = { key, redis.call('HGETALL', recordKey) }
  else
    redis.call('ZREM', KEYS[1], key)
  end
end
return found
`);
