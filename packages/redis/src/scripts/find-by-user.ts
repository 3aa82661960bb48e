import type { LuaScript } from '../lua-script.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * KEYS: marker, due, state sets, the user's two indexes, the records read. ARGV: prefix,
 * externalUserId, now, limit.
 * Returns [[key, fields], ...]: the user's open records (oldest first), then the closed ones
 * still retained at `now`, kept longest first; at most `limit` in all.
 *
 * Open and closed records are in two sorted sets (by createdAt, by purge time), so the
 * script reads bounded ranges of them: its cost follows `limit`, not the number of records
 * the user has accumulated. Entries whose record is gone are dropped on the way.
 */
export const FIND_BY_USER: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}
local user, now, limit = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local found, stale = {}, {}

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

-- Reads the index range by range, counting a record not declared yet as one that may be
-- found, so the keys asked for stay within limit; stale entries are removed once all is read.
local function collect(index, range, wantOpen)
  local offset = 0
  while #found + #UNDECLARED < limit do
    local keys = range(index, offset, limit - #found - #UNDECLARED)
    if #keys == 0 then return end
    offset = offset + #keys
    for _, key in ipairs(keys) do
      if declared(recordKey(key)) and not belongs(key, wantOpen) then
        stale[#stale + 1] = { index, key }
      end
    end
  end
end

collect(openIndex(user), function(index, offset, count)
  return redis.call('ZRANGE', index, offset, offset + count - 1)
end, true)
collect(closedIndex(user), function(index, offset, count)
  return redis.call('ZREVRANGEBYSCORE', index, '+inf', '(' .. ARGV[3], 'LIMIT', offset, count)
end, false)
if #UNDECLARED > 0 then return needsKeys() end

for _, entry in ipairs(stale) do redis.call('ZREM', entry[1], entry[2]) end
redis.call('ZREMRANGEBYSCORE', closedIndex(user), '-inf', ARGV[3])
return found
`);
