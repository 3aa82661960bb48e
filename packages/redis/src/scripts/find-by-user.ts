import { LuaScript } from '../lua-script.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * KEYS: the user's open index. ARGV: prefix, externalUserId, now, limit.
 * Returns [[key, fields], ...]: the user's open records (oldest first), then the closed ones
 * still retained at `now`, kept longest first; at most `limit` in all.
 *
 * Open and closed records are in two sorted sets (by createdAt, by purge time), so the
 * script reads bounded ranges of them: its cost follows `limit`, not the number of records
 * the user has accumulated. Entries whose record is gone are dropped on the way.
 */
export const FIND_BY_USER = new LuaScript(`${RECORD_LIFETIME_LUA}
local user, now, limit = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local found = {}

local function belongs(key, wantOpen)
  local rk = recordKey(key)
  local f = redis.call('HMGET', rk, 'user', 'state', 'purgeAt')
  if f[1] ~= user or isOpen(f[2]) ~= wantOpen then return false end
  if not wantOpen then
    local purgeAt = finite(f[3])
    if not purgeAt or purgeAt <= now then return false end
  end
  found[#found + 1] = { key, redis.call('HGETALL', rk) }
  return true
end

-- Reads the index range by range; a stale entry is removed, so the next range starts after
-- the entries kept.
local function collect(index, range, wantOpen)
  local offset = 0
  while #found < limit do
    local keys = range(index, offset, limit - #found)
    if #keys == 0 then return end
    for _, key in ipairs(keys) do
      if belongs(key, wantOpen) then
        offset = offset + 1
      else
        redis.call('ZREM', index, key)
      end
    end
  end
end

collect(openIndex(user), function(index, offset, count)
  return redis.call('ZRANGE', index, offset, offset + count - 1)
end, true)

local closed = closedIndex(user)
redis.call('ZREMRANGEBYSCORE', closed, '-inf', ARGV[3])
collect(closed, function(index, offset, count)
  return redis.call('ZREVRANGEBYSCORE', index, '+inf', '(' .. ARGV[3], 'LIMIT', offset, count)
end, false)
return found
`);
