import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * KEYS: marker, due, state sets, record, its user's indexes. ARGV: prefix, key, result JSON, now.
 * Returns the AttachOutcome. A closed record whose retention passed at `now` is missing.
 */
export const ATTACH_RESULT = storeScript(`${RECORD_LIFETIME_LUA}
local key, result, now = ARGV[2], ARGV[3], tonumber(ARGV[4])
if not declaredRecord(key) then return needsKeys() end
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
  redis.call('HSET', rk, 'dueAt', ARGV[4])
  redis.call('ZADD', DUE, ARGV[4], key)
end
keepOpen(key, now, state)
return 'attached'
`);
