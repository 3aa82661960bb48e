import type { LuaScript } from '../lua-script.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * KEYS: marker, due, state sets, record, its user's indexes. ARGV: prefix, key, owner, now, new state, result JSON or '' for none, then
 * - open states: dueAt, attempts;
 * - closed states: purge time (now + retainMs), attempts or '' to leave them;
 * then the channel a close is published on: from the script, no round trip of its own per
 * close. A PUBLISH that Redis refuses (an ACL without the channel) does not fail the close:
 * notices are hints, and waiting pages reread the store.
 * Returns 1 when applied, 0 when the owner does not hold the lease.
 */
export const SETTLE: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}
local key, owner, now, state, result = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
if not declaredRecord(key) then return needsKeys() end
local rk = recordKey(key)
local record = redis.call('HMGET', rk, 'state', 'leaseOwner')
local previous = record[1]
if not isOpen(previous) or record[2] ~= owner then return 0 end
redis.call('HDEL', rk, 'leaseOwner', 'leaseUntil')
-- The owner's result replaces the record's (it is what was, or will be, delivered), except
-- on "still pending", which keeps a result attached during the lease.
if result ~= '' and (state ~= 'pending' or redis.call('HEXISTS', rk, 'result') == 0) then
  redis.call('HSET', rk, 'result', result)
end

if not isOpen(state) then
  if ARGV[8] ~= '' then redis.call('HSET', rk, 'attempts', ARGV[8]) end
  close(key, state, tonumber(ARGV[7]), now)
  redis.pcall('PUBLISH', ARGV[9], key)
  return 1
end

local dueAt = ARGV[7]
if state == 'pending' and redis.call('HEXISTS', rk, 'result') == 1 then
  -- A result attached during the lease outranks the owner's "still pending": deliver it now.
  state = 'delivering'
  dueAt = ARGV[4]
end
redis.call('HSET', rk, 'state', state, 'dueAt', dueAt, 'attempts', ARGV[8])
redis.call('ZADD', DUE, dueAt, key)
keepOpen(key, now, previous)
return 1
`);
