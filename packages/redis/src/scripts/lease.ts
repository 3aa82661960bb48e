import { GRANT_LUA } from './grant.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * KEYS: marker, due, state sets, record, its user's indexes. ARGV: prefix, key, owner, now, lease end.
 * Returns the leased record's fields, or nil when it is closed, missing or leased to another
 * owner whose lease has not passed.
 */
export const LEASE = storeScript(`${RECORD_LIFETIME_LUA}${GRANT_LUA}
local key, owner, now = ARGV[2], ARGV[3], tonumber(ARGV[4])
if not declaredRecord(key) then return needsKeys() end
local record = redis.call('HMGET', recordKey(key), 'state', 'leaseOwner', 'leaseUntil')
if not isOpen(record[1]) then return false end
if record[2] and record[2] ~= owner and tonumber(record[3]) > now then return false end
return grant(key, owner, ARGV[5], now)
`);
