import type { LuaScript } from '../lua-script.js';
import { ATTACH_LUA } from './attach-result.js';
import { GRANT_LUA } from './grant.js';
import { LEASE_LUA } from './lease.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * KEYS: marker, due, state sets, record, its user's indexes. ARGV: prefix, key, result JSON,
 * now, owner, lease end.
 * `attachResult`, then, when it attached, `lease`, in one script: returns `{ outcome }`, or
 * `{ 'attached', fields }` with the leased record's fields (as HGETALL returns them).
 */
export const ATTACH_AND_LEASE: LuaScript =
  storeScript(`${RECORD_LIFETIME_LUA}${GRANT_LUA}${ATTACH_LUA}${LEASE_LUA}
local key, now = ARGV[2], tonumber(ARGV[4])
if not declaredRecord(key) then return needsKeys() end
local attached = attach(key, ARGV[3], now, ARGV[4])
if attached ~= 'attached' then return { attached } end
local leased = leaseTo(key, ARGV[5], ARGV[6], now)
if not leased then return { attached } end
return { attached, leased }
`);
