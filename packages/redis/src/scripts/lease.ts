import { LuaScript } from '../lua-script.js';
import { GRANT_LUA } from './grant.js';

/**
 * KEYS: record, due set. ARGV: key, owner, now, lease end.
 * Returns the leased record's fields, or nil when it is closed, missing or leased to another
 * owner whose lease has not passed.
 */
export const LEASE = new LuaScript(`${GRANT_LUA}
local record = redis.call('HMGET', KEYS[1], 'state', 'leaseOwner', 'leaseUntil')
if record[1] ~= 'pending' and record[1] ~= 'delivering' then return false end
if record[2] and record[2] ~= ARGV[2] and tonumber(record[3]) > tonumber(ARGV[3]) then
  return false
end
return grant(KEYS[2], KEYS[1], ARGV[1], ARGV[2], ARGV[4])
`);
