import type { LuaScript } from '../lua-script.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * Lua shared by `attachResult` and `attachAndLease` (after RECORD_LIFETIME_LUA, with the record
 * and its user's indexes declared): stores the first result of an open record and makes it
 * due at `now`, unless a live lease keeps it with its owner. `nowText` is `now` as given.
 * Returns the AttachOutcome. A closed record whose retention passed at `now` is missing.
 */
export const ATTACH_LUA: string = `
local function attach(key, result, now, nowText)
  local rk = recordKey(key)
  local record = redis.call('HMGET', rk, 'state', 'leaseUntil')
  local state = record[1]
  if not state then return 'missing' end
  if not isOpen(state) then
    if isPurged(rk, now) then return 'missing' end
    return 'closed'
  end
  if redis.call('HEXISTS', rk, 'result') == 1 then return 'already-attached' end
  redis.call('HSET', rk, 'result', result, 'state', 'delivering')
  -- From now on attempts count deliveries, no longer polls.
  if state == 'pending' then redis.call('HSET', rk, 'attempts', 0) end
  -- A leased record stays with its owner, who finds the result when it settles.
  local leaseUntil = tonumber(record[2])
  if not leaseUntil or leaseUntil <= now then
    redis.call('HSET', rk, 'dueAt', nowText)
    redis.call('ZADD', DUE, nowText, key)
  end
  keepOpen(key, now, state)
  return 'attached'
end
`;

/**
 * KEYS: marker, due, state sets, record, its user's indexes. ARGV: prefix, key, result JSON, now.
 * Returns the AttachOutcome.
 */
export const ATTACH_RESULT: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}${ATTACH_LUA}
local key = ARGV[2]
if not declaredRecord(key) then return needsKeys() end
return attach(key, ARGV[3], tonumber(ARGV[4]), ARGV[4])
`);
