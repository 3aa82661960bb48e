import { LuaScript } from '../lua-script.js';

/**
 * KEYS: record, due set, counts, closed:completed, closed:expired.
 * ARGV: key, owner, now, user index prefix, new state, result JSON or '' for none, then
 * - open states: dueAt, attempts;
 * - closed states: retention in ms or '' to keep without end, purge time (or 'inf'),
 *   grace in ms added to the user index's expiry.
 * Returns 1 when applied, 0 when the owner does not hold the lease.
 */
export const SETTLE = new LuaScript(`
local record = redis.call('HMGET', KEYS[1], 'state', 'leaseOwner', 'user')
local previous = record[1]
if (previous ~= 'pending' and previous ~= 'delivering') or record[2] ~= ARGV[2] then
  return 0
end
local key, now, state, result = ARGV[1], ARGV[3], ARGV[5], ARGV[6]
redis.call('HDEL', KEYS[1], 'leaseOwner', 'leaseUntil')
-- The first result stays: a result given now is kept only when the record had none.
if result ~= '' and redis.call('HEXISTS', KEYS[1], 'result') == 0 then
  redis.call('HSET', KEYS[1], 'result', result)
end

if state == 'completed' or state == 'expired' then
  local retainMs, purgeAt = ARGV[7], ARGV[8]
  redis.call('HSET', KEYS[1], 'state', state)
  redis.call('ZREM', KEYS[2], key)
  redis.call('HINCRBY', KEYS[3], previous, -1)
  redis.call('ZADD', state == 'completed' and KEYS[4] or KEYS[5], purgeAt, key)
  local userIndex = ARGV[4] .. record[3]
  redis.call('ZADD', userIndex, purgeAt, key)
  if retainMs ~= '' then
    redis.call('PEXPIRE', KEYS[1], retainMs)
    -- The index expires once nothing in it is open or kept without end, a grace after its
    -- last record, so that clocks of several instances that differ a little lose nothing.
    if redis.call('ZCOUNT', userIndex, 'inf', 'inf') == 0 then
      local last = redis.call('ZRANGE', userIndex, -1, -1, 'WITHSCORES')
      local ttl = math.ceil(tonumber(last[2]) - tonumber(now) + tonumber(ARGV[9]))
      redis.call('PEXPIRE', userIndex, math.max(ttl, 1))
    end
  end
  return 1
end

local dueAt, attempts = ARGV[7], ARGV[8]
if state == 'pending' and redis.call('HEXISTS', KEYS[1], 'result') == 1 then
  -- A result attached during the lease outranks the owner's "still pending": deliver it now.
  state = 'delivering'
  dueAt = now
end
redis.call('HSET', KEYS[1], 'state', state, 'dueAt', dueAt, 'attempts', attempts)
redis.call('ZADD', KEYS[2], dueAt, key)
if state ~= previous then
  redis.call('HINCRBY', KEYS[3], previous, -1)
  redis.call('HINCRBY', KEYS[3], state, 1)
end
return 1
`);
