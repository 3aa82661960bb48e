/**
 * Lua shared by `lease` and `leaseDue`: gives the record to `owner` until `untilAt` and makes
 * it due at the lease end, so that work of an owner that crashed is picked up again then.
 * Returns the record's fields as HGETALL does.
 */
export const GRANT_LUA = `
local function grant(dueKey, recordKey, key, owner, untilAt)
  redis.call('HSET', recordKey, 'leaseOwner', owner, 'leaseUntil', untilAt, 'dueAt', untilAt)
  redis.call('ZADD', dueKey, untilAt, key)
  return redis.call('HGETALL', recordKey)
end
`;
