import { LuaScript } from '../lua-script.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * KEYS: record. ARGV: prefix, key, externalUserId, state, createdAt, dueAt, now,
 * maxOpenPerUser ('' for no bound), purge time of displaced records, purge time if inserted
 * closed, then the record's fields as name/value pairs.
 * Returns { 1 | 0, { { key, fields }, ... } }: whether it was added, and the records closed
 * to make room for it, as they were before closing.
 */
export const INSERT = new LuaScript(`${RECORD_LIFETIME_LUA}
local key, user, state, createdAt, dueAt = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local now = tonumber(ARGV[7])
local rk = recordKey(key)
if redis.call('EXISTS', rk) == 1 then
  if not isPurged(rk, now) then return { 0, {} } end
  -- Its retention has passed: the key is free, only cleanup had not come yet.
  purge(key)
end

local displaced = {}
if isOpen(state) and ARGV[8] ~= '' then
  -- The oldest open records go until this one fits within the bound. The user's open index
  -- is ordered by createdAt, so this reads only the records it closes (and any stale entry).
  local keep = math.max(0, tonumber(ARGV[8]) - 1)
  local index = openIndex(user)
  while redis.call('ZCARD', index) > keep do
    local oldest = redis.call('ZRANGE', index, 0, 0)[1]
    local ork = recordKey(oldest)
    local f = redis.call('HMGET', ork, 'user', 'state')
    if f[1] == user and isOpen(f[2]) then
      displaced[#displaced + 1] = { oldest, redis.call('HGETALL', ork) }
      close(oldest, 'expired', tonumber(ARGV[9]), now)
    else
      -- The record was dropped by its TTL, or its key now belongs to another record.
      redis.call('ZREM', index, oldest)
    end
  end
end

redis.call('HSET', rk, unpack(ARGV, 11))
if isOpen(state) then
  redis.call('ZADD', openIndex(user), createdAt, key)
  redis.call('ZADD', DUE, dueAt, key)
  keepOpen(key, now)
else
  retainClosed(key, user, state, tonumber(ARGV[10]), now)
end
return { 1, displaced }
`);
