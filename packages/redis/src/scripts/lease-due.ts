import { LuaScript } from '../lua-script.js';
import { GRANT_LUA } from './grant.js';

/**
 * KEYS: due set. ARGV: record key prefix, now, limit, owner, lease end (after now).
 * Returns [[key, fields], ...], earliest due first.
 *
 * Only the due part of the sorted set is read (ZRANGEBYSCORE -inf now LIMIT), so the cost
 * follows the number of due records, not the number tracked. Every key read leaves the due
 * range (granted until the lease end, moved, or removed), so the loop ends.
 */
export const LEASE_DUE = new LuaScript(`${GRANT_LUA}
local now = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local granted = {}
while #granted < limit do
  local keys = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, limit - #granted)
  if #keys == 0 then break end
  for _, key in ipairs(keys) do
    local recordKey = ARGV[1] .. key
    local record = redis.call('HMGET', recordKey, 'state', 'leaseOwner', 'leaseUntil')
    if record[1] ~= 'pending' and record[1] ~= 'delivering' then
      -- The record was removed behind the store's back (eviction, manual deletion).
      redis.call('ZREM', KEYS[1], key)
    elseif record[3] and tonumber(record[3]) > now then
      -- Inserted with a lease that has not passed: it becomes due when the lease ends.
      redis.call('HSET', recordKey, 'dueAt', record[3])
      redis.call('ZADD', KEYS[1], record[3], key)
    else
      granted[#granted + 1] = { key, grant(KEYS[1], recordKey, key, ARGV[4], ARGV[5]) }
    end
  end
end
return granted
`);
