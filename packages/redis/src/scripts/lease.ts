import type { LuaScript } from '../lua-script.js';
import { GRANT_LUA } from './grant.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * Lua shared by `lease` and `attachAndLease` (after RECORD_LIFETIME_LUA and GRANT_LUA, with the
 * record and its user's indexes declared): grants an open record that is free, whose lease
 * passed, or that `owner` holds. Returns its fields as HGETALL does, or false.
 */
export const LEASE_LUA: string = `
local function leaseTo(key, owner, untilAt, now)
  local record = redis.call('HMGET', recordKey(key), 'state', 'leaseOwner', 'leaseUntil')
  if not isOpen(record[1]) then return false end
  if record[2] and record[2] ~= owner and tonumber(record[3]) > now then return false end
  return grant(key, owner, untilAt, now)
end
`;

/**
 * KEYS: marker, due, state sets, record, its user's indexes. ARGV: prefix, key, owner, now, lease end.
 * Returns the leased record's fields, or nil when it is closed, missing or leased to another
 * owner whose lease has not passed.
 */
export const LEASE: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}${GRANT_LUA}${LEASE_LUA}
local key = ARGV[2]
if not declaredRecord(key) then return needsKeys() end
return leaseTo(key, ARGV[3], ARGV[5], tonumber(ARGV[4]))
`);
