import type { LuaScript } from '../lua-script.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';
import { START_LUA } from './starts.js';

/**
 * KEYS: marker, due, state sets, record, the indexes of its user and of the user of a record
 * it replaces, the records it displaces, and the start it ends with the user's start index.
 * ARGV: prefix, key, externalUserId, state, createdAt, dueAt, now, maxOpenPerUser ('' for no
 * bound), purge time of displaced records, purge time if inserted closed, the start's key
 * ('' for none) and its claim's owner, then the record's fields as name/value pairs.
 * Returns { 1 | 0, { { key, fields }, ... } }: whether it was added, and the records closed
 * to make room for it, as they were before closing.
 */
export const INSERT: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}${START_LUA}
local key, user, state, createdAt, dueAt = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local now = tonumber(ARGV[7])
local start, startOwner = ARGV[11], ARGV[12]
local rk = recordKey(key)
if start ~= '' then declared(startKey(start), startIndex(user)) end
-- The keys touched: the record (and a retained one it replaces), the user's indexes, and
-- the oldest open records of the user beyond the bound, which it may close.
local replaced = declaredRecord(key)
local indexes = declared(openIndex(user), closedIndex(user))
if isOpen(state) and ARGV[8] ~= '' and indexes then
  local over = redis.call('ZCARD', openIndex(user)) - math.max(0, tonumber(ARGV[8]) - 1)
  if over > 0 then
    for _, oldest in ipairs(redis.call('ZRANGE', openIndex(user), 0, over - 1)) do
      declared(recordKey(oldest))
    end
  end
end
if not (replaced and indexes) or #UNDECLARED > 0 then return needsKeys() end

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

redis.call('HSET', rk, unpack(ARGV, 13))
if isOpen(state) then
  redis.call('ZADD', openIndex(user), createdAt, key)
  redis.call('ZADD', DUE, dueAt, key)
  keepOpen(key, now)
else
  retainClosed(key, user, state, tonumber(ARGV[10]), now)
end
if start ~= '' then startInserted(start, startOwner, key, user, now) end
return { 1, displaced }
`);
