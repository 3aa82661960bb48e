import type { LuaScript } from '../lua-script.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';
import { START_LUA } from './starts.js';

/**
 * KEYS: marker, due, state sets, the user's three indexes, every record and start they list.
 * ARGV: prefix, externalUserId, now.
 * Erasure: removes every record the user's indexes list (open, leased or not, closed and
 * retained, dead letters) with its entries in `due` and the state sets, every start of the
 * user (`us:<user>`: the session each names, and any claim on it), then the indexes.
 * Returns how many of the records removed were still readable at `now`.
 *
 * The indexes are the user's only mapping: every record is in one of them from its insert on
 * (open by createdAt, closed by purge time), and they outlive their records. The records are
 * asked for as KEYS in a second round (see declared-keys.ts), so on a Cluster the script runs
 * where all of them are; one script, so no other call sees the user half removed, and a lease
 * held on a removed record ends with it (its settle finds no record).
 */
export const FORGET_USER: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}${START_LUA}
local user, now = ARGV[2], tonumber(ARGV[3])
local open, closed, starts = openIndex(user), closedIndex(user), startIndex(user)
if not declared(open, closed, starts) then return needsKeys() end
local keys = {}
for _, index in ipairs({ open, closed }) do
  for _, key in ipairs(redis.call('ZRANGE', index, 0, -1)) do
    declared(recordKey(key))
    keys[#keys + 1] = key
  end
end
local startKeys = {}
for _, start in ipairs(redis.call('ZRANGE', starts, 0, -1)) do
  declared(startKey(start))
  startKeys[#startKeys + 1] = startKey(start)
end
if #UNDECLARED > 0 then return needsKeys() end

local removed = 0
for _, key in ipairs(keys) do
  local rk = recordKey(key)
  -- An entry whose key now holds another user's record (or none) only leaves the index.
  if redis.call('HGET', rk, 'user') == user then
    if not isPurged(rk, now) then removed = removed + 1 end
    purge(key)
  end
end
for _, sk in ipairs(startKeys) do
  if redis.call('HGET', sk, 'user') == user then redis.call('DEL', sk) end
end
redis.call('DEL', open, closed, starts)
return removed
`);
