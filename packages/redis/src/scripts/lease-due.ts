import type { LuaScript } from '../lua-script.js';
import { GRANT_LUA } from './grant.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * KEYS: marker, due, state sets, the due records and their users' indexes. ARGV: prefix,
 * now, limit, owner, lease end (after now).
 * Returns [[key, fields], ...], earliest due first; fewer than limit when the records after
 * them were not declared yet (they are granted by the next call).
 *
 * Only the due part of the sorted set is read (ZRANGEBYSCORE -inf now LIMIT), so the cost
 * follows the number of due records, not the number tracked. A record leased to someone is
 * scored by its lease end, so a due member is never held by a live lease.
 */
export const LEASE_DUE: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}${GRANT_LUA}
local now, limit, owner, untilAt = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]
local open, stale = {}, {}
local offset = 0
-- Keys are asked for up to twice limit: instances racing for the same due records take
-- some between two rounds, and the rest are still there to grant.
while #open < limit and #open + #UNDECLARED < 2 * limit do
  local count = limit - #open
  local keys = redis.call('ZRANGEBYSCORE', DUE, '-inf', ARGV[2], 'LIMIT', offset, count)
  if #keys == 0 then break end
  offset = offset + #keys
  for _, key in ipairs(keys) do
    if declaredRecord(key) then
      if isOpen(redis.call('HGET', recordKey(key), 'state')) then
        -- Granted only while no earlier due record waits for its keys: earliest first.
        if #UNDECLARED == 0 then open[#open + 1] = key end
      else
        -- Its record was dropped by its TTL (a day past its expiry) or deleted by hand.
        stale[#stale + 1] = key
      end
    end
  end
end
-- Another instance racing for the same records changes the due range between rounds: the
-- records already declared are granted rather than asked for again.
if #UNDECLARED > 0 and #open == 0 then return needsKeys() end

for _, key in ipairs(stale) do redis.call('ZREM', DUE, key) end
local granted = {}
for _, key in ipairs(open) do granted[#granted + 1] = { key, grant(key, owner, untilAt, now) } end
return granted
`);
