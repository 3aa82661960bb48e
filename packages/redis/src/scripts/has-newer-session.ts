import type { LuaScript } from '../lua-script.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * KEYS: marker, due, state sets, each user's two indexes, the records read. ARGV: prefix,
 * createdAfter, now, then the users.
 * Returns 1 when a record `get` would return is of one of the users, a tracked session's (not
 * `webhook:<digest>`, a delivery matched to no session) and created after `createdAfter`;
 * else 0. Every store key shares the prefix's hash tag, so one script reads every user.
 *
 * Reads no more than it must: of the open index (scored by createdAt) only the part after
 * `createdAfter`, of the closed index only what is retained at `now`, and of each record
 * found only its user, state, retention and start, stopping at the first newer session. A
 * record not declared yet is asked for (a second run) only when no declared one answers.
 */
export const HAS_NEWER_SESSION: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}
local createdAfter, now = tonumber(ARGV[2]), tonumber(ARGV[3])

-- Whether the record of key is a session's of user, kept at now, started after createdAfter.
local function isNewer(key, user)
  local f = redis.call('HMGET', recordKey(key), 'user', 'state', 'purgeAt', 'createdAt')
  if f[1] ~= user then return false end
  local createdAt = finite(f[4])
  if not createdAt or createdAt <= createdAfter then return false end
  if isOpen(f[2]) then return true end
  local purgeAt = finite(f[3])
  return purgeAt ~= nil and purgeAt > now
end

-- Whether one of keys, read if declared, is newer; undeclared ones are noted.
local function anyNewer(keys, user)
  for _, key in ipairs(keys) do
    if string.sub(key, 1, 8) ~= 'webhook:' and declared(recordKey(key)) and isNewer(key, user) then
      return true
    end
  end
  return false
end

for i = 4, #ARGV do
  local user = ARGV[i]
  if anyNewer(redis.call('ZRANGEBYSCORE', openIndex(user), '(' .. ARGV[2], '+inf'), user) then
    return 1
  end
  if anyNewer(redis.call('ZRANGEBYSCORE', closedIndex(user), '(' .. ARGV[3], '+inf'), user) then
    return 1
  end
end
if #UNDECLARED > 0 then return needsKeys() end
return 0
`);
