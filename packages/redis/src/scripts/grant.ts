/**
 * Lua shared by `lease` and `leaseDue` (after RECORD_LIFETIME_LUA): gives the record to
 * `owner` until `untilAt` and makes it due at the lease end, so that work of an owner that
 * crashed is picked up again then. Returns the record's fields as HGETALL does.
 */
export const GRANT_LUA: string = `
local function grant(key, owner, untilAt, now)
  local rk = recordKey(key)
  redis.call('HSET', rk, 'leaseOwner', owner, 'leaseUntil', untilAt, 'dueAt', untilAt)
  redis.call('ZADD', DUE, untilAt, key)
  keepOpen(key, now)
  return redis.call('HGETALL', rk)
end
`;
