import { LuaScript } from '../lua-script.js';
import { GRANT_LUA } from './grant.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * KEYS: due set. ARGV: prefix, now, limit, owner, lease end (after now).
 * Returns [[key, fields], ...], earliest due first.
 *
 * Only the due part of the sorted set is read (ZRANGEBYSCORE -inf now LIMIT), so the cost
 * follows the number of due records, not the number tracked. Every key read leaves the due
 * range (granted until the lease end, or removed), so the loop ends. A record leased to
 * someone is scored by its lease end, so a due member is never held by a live lease.
 */
export const LEASE_DUE = new LuaScript(`${RECORD_LIFETIME_LUA}${GRANT_LUA}
local now, limit, owner, untilAt = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]
local granted = {}
while #granted < limit do
  local keys = redis.call('ZRANGEBYSCORE', DUE, '-inf', ARGV[2], 'LIMIT', 0, limit - #granted)
  if #keys == 0 then break end
  for _, key in ipairs(keys) do
    if isOpen(redis.call('HGET', recordKey(key), 'state')) then
      granted[#granted + 1] = { key, grant(key, owner, untilAt, now) }
    else
      -- Its record was dropped by its TTL (a day past its expiry) or deleted by hand.
      redis.call('ZREM', DUE, key)
    end
  end
end
return granted
`);
