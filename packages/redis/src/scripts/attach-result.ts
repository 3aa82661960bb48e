import { LuaScript } from '../lua-script.js';

/**
 * KEYS: record, due set, counts. ARGV: key, result JSON, now.
 * Returns the AttachOutcome.
 */
export const ATTACH_RESULT = new LuaScript(`
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'missing' end
if state ~= 'pending' and state ~= 'delivering' then return 'closed' end
if redis.call('HEXISTS', KEYS[1], 'result') == 1 then return 'already-attached' end
redis.call('HSET', KEYS[1], 'result', ARGV[2], 'state', 'delivering')
if state == 'pending' then
  -- From now on attempts count deliveries, no longer polls.
  redis.call('HSET', KEYS[1], 'attempts', 0)
  redis.call('HINCRBY', KEYS[3], 'pending', -1)
  redis.call('HINCRBY', KEYS[3], 'delivering', 1)
end
-- A leased record stays with its owner, who finds the result when it settles.
local leaseUntil = redis.call('HGET', KEYS[1], 'leaseUntil')
if not leaseUntil or tonumber(leaseUntil) <= tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], 'dueAt', ARGV[3])
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
return 'attached'
`);
